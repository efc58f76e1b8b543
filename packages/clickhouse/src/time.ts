/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC: how a DateTime64(3, 'UTC') parameter or column value is written. */
export const clickhouseTime = (at: Date | number): string => new Date(at).toISOString().replace('T', ' ').replace('Z', '');

/** A UTC DateTime / DateTime64 text as ClickHouse writes it ('YYYY-MM-DD HH:MM:SS[.mmm]') as epoch milliseconds (NaN if it is none). */
export const parseClickhouseTime = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);
