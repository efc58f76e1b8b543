-- The order that decides a visitor's segment (source, campaign, device): its earliest visitor
-- row in W, ties to the smallest event id. Use: `argMin(source, {{> shared/visit_order}})`.
(received_at, UUIDToNum(event_id))
