/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: how a DateTime64(3, 'UTC') parameter or column value is written. */
export const clickhouseTime = (at: Date | number): string => new Date(at).toISOString().replace('T', ' ').replace('Z', '');
