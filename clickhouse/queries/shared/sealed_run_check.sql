-- For the statements that keep a sealed run (migration 0090): a condition that is true, or
-- fails the statement when W's sealed hours are no longer the run {run} the repository was told
-- (stats_sealed_hours.sql): an hour sealed again meanwhile must not be kept under the old run.
-- Use in a WHERE clause after shared/sealed_hours: `WHERE {{> shared/sealed_run_check}} AND …`.
throwIf((
    SELECT {{> shared/run_fingerprint hour=(hour) sealed_at=(sealed_at)}}
    FROM token_hour_sets FINAL
    WHERE {{> shared/in_sealed_hours}} AND lookback_s = {lookback_s:UInt32}
) != {run:UInt64}, 'the sealed run changed while it was being kept') = 0
