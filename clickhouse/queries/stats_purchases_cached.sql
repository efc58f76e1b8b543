-- stats_purchases_sealed_settled.sql (read it first) for a settled sealed run that is kept
-- (migration 0090, build {build} of run {run}): the same result, read from what the run's
-- keeping computed once instead of from its hours on every call. A token no unsealed row of W
-- touches (none in `raw`) is as the run says, and the kept totals hold it; a touched token
-- (`touched`: the unsealed rows' tokens with an id; one without an id is in no sealed hour) is
-- taken out of them (`seen`: its part of the kept totals, computed as they were) and counted
-- again with its unsealed rows (by_token, as the settled query counts it). Every set the query
-- holds as a constant is cut down to the touched ids: a bitmap of a run's 1.5M visitors written
-- into a subquery as a constant cost the analyzer ~12 ms per use.
-- This file reads runs without holes; stats_purchases_cached_holes.sql reads the others.
WITH
    {{> shared/kept_purchases_head}},
    -- The unsealed rows' conversations of the touched tokens, each token's first, as (ids, times)
    -- for transform(): constant expressions over `raw`, not a subquery (~15 ms less). A run with
    -- holes needs, for unsealed purchases in a hole, the sealed hours' conversations before it too.
    (arrayMap(t -> t.2, arrayFilter(t -> t.2 > 0 AND t.4, raw)), arrayMap(t -> t.5, arrayFilter(t -> t.2 > 0 AND t.4, raw))) AS other_chats,
    {{> shared/kept_purchases_tail}}
