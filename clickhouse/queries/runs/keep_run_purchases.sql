-- Keeps a settled sealed run's purchases (migration 0090) as build {build}: each purchase that
-- counts (its order's first row when sealed; the run is settled, so nothing arrived since to
-- say otherwise) with its token's latest conversation before it. Then runs/keep_run.sql.
INSERT INTO sealed_run_purchases (chatbot_id, run, build, id, at, revenue, chat)
WITH {{> shared/sealed_hours}}
SELECT {chatbot_id:String}, {run:UInt64}, {build:UUID}, p.id, p.at, p.revenue, chat
FROM token_hour_sets FINAL
ARRAY JOIN purchases AS p, purchases_first AS first, purchases_chat AS chat
WHERE {{> shared/sealed_run_check}} AND {{> shared/in_sealed_hours}} AND first
