-- Per UTC day the union of the day's hourly sets, as they are inserted into token_hour_sets (a
-- view on a view's table: a recomputed hour reaches its day the same way). A window's whole
-- days merge 30 bitmaps, not 720.
SELECT chatbot_id, toDate(hour) AS day, kind, groupBitmapMergeState(tokens) AS tokens
FROM token_hour_sets
GROUP BY chatbot_id, day, kind
