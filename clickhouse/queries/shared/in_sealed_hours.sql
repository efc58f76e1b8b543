-- The token_hour_sets rows a *_sealed.sql statistic reads: this chatbot's sealed hours of W that
-- still describe their rows (shared/sealed_hours.sql: the run less its holes). The range bounds
-- the primary key's second column, so only that range's rows are read.
-- Use: `FROM token_hour_sets FINAL WHERE {{> shared/in_sealed_hours}}`.
chatbot_id = {chatbot_id:String} AND hour >= sealed_from AND hour < sealed_until AND NOT has(holes, hour)
