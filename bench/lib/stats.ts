/** The middle value (the upper one of an even count): the benches' robust summary of repeated samples. */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
