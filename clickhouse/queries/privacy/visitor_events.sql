-- Every stored event of one visitor token of a chatbot, oldest first: the export of
-- `GET /api/dashboard/chatbots/{id}/visitors/{token}/export` (GDPR Art. 15 and 20). Each stored
-- row once (FINAL); retried copies are listed as stored.
SELECT
    toString(event_id) AS event_id, event, toString(received_at) AS received_at, ab_test, ab_group, popup_version, open_way,
    order_num, currency, total_value, total_value_base, items, url, user_agent, client_hash, data, is_bot,
    source, utm_medium, utm_campaign, device
FROM events FINAL
WHERE chatbot_id = {chatbot_id:String} AND token = {token:String}
ORDER BY received_at, event_id
