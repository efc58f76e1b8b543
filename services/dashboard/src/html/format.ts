/** Number formats of the app pages (English, thousands separators; money in EUR). */
const INT = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const DEC = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const EUR = new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' });

export const fmtInt = (v: number) => INT.format(v);
export const fmtPercent = (v: number) => `${DEC.format(v)} %`;
export const fmtEur = (v: number) => EUR.format(v);
export const fmtDec = (v: number) => DEC.format(v);
