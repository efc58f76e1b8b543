-- The newest build of sealed run {run} of a chatbot that is kept (migration 0090) and not about
-- to expire (the table's TTL drops builds after a day; a reader holds a build for minutes).
SELECT toString(build) AS build
FROM sealed_runs
WHERE chatbot_id = {chatbot_id:String} AND run = {run:UInt64} AND built_at > now64(3) - INTERVAL 20 HOUR
ORDER BY built_at DESC
LIMIT 1
