-- The token_hour_sets rows a *_sealed.sql statistic reads: this chatbot's sealed hours of W that
-- still describe their rows (`sealed`, from shared/sealed_hours.sql). The range bounds the
-- primary key's second column, so only that range's rows are read before has() picks them.
-- Use: `FROM token_hour_sets FINAL WHERE {{> shared/in_sealed_hours}}`.
chatbot_id = {chatbot_id:String} AND hour >= sealed_from AND hour < sealed_until AND has(sealed, hour)
