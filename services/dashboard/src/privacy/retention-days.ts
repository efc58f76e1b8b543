/**
 * How long a chatbot keeps a visitor's raw rows (README.md, "Personal data"). Default 395 days:
 * 13 months, the longest the French CNIL accepts for audience measurement, and a year-on-year
 * comparison of the same month still has its raw rows. At least 30: the statistics' longest
 * window, and the 31 days over which a retried copy is recognised. At most 1,095 (three years).
 * The PostgreSQL column's default (packages/postgres/src/schema/chatbots.ts) is the same 395.
 */
export const RETENTION_DAYS = { default: 395, min: 30, max: 1095 } as const;
