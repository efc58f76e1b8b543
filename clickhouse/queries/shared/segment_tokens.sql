-- The segment filter of every windowed statistic (services/dashboard/README.md, "Segments"), as a
-- condition on a row of `events`: its token is one of V's whose segment matches. A token's
-- segment is the source, utm_campaign and device of its earliest `visitor` row in W (ties:
-- smallest event_id in text order, which UUIDToNum's bytes follow), among the rows the window
-- counts (the conditions of shared/window_events.sql, written out here because that fragment
-- includes this one).
-- Each of {segment_source}, {segment_utm_campaign}, {segment_device} is an exact match, ''
-- = any. {segment_filtered} (false when all three are '') makes the fragment a no-op: the
-- first branch is the constant true and the set's WHERE the constant false, so an unfiltered
-- statistic reads no extra granule.
-- Use in a WHERE over `events`: `AND {{> shared/segment_tokens}}`.
(NOT {segment_filtered:Bool} OR token IN (
    SELECT token
    FROM events
    WHERE {segment_filtered:Bool}
      AND chatbot_id = {chatbot_id:String}
      AND received_at >= {from:DateTime64(3, 'UTC')}
      AND received_at <= {to:DateTime64(3, 'UTC')}
      AND event = 'visitor'
      AND NOT is_bot
      AND prev_copy_at < {dedup_lookback_from:DateTime64(3, 'UTC')}
    GROUP BY token
    HAVING ({segment_source:String} = '' OR argMin(source, {{> shared/visit_order}}) = {segment_source:String})
       AND ({segment_utm_campaign:String} = '' OR argMin(utm_campaign, {{> shared/visit_order}}) = {segment_utm_campaign:String})
       AND ({segment_device:String} = '' OR argMin(device, {{> shared/visit_order}}) = {segment_device:String})))
