-- A sealed run's fingerprint (migration 0090), an aggregate over its token_hour_sets rows: each
-- hour with the time it was sealed (a reseal writes a newer one), so that another set of hours,
-- or one hour sealed again, is another run. The run's rows are those of one retry look-back.
-- Use in a SELECT list over the run's rows: `{{> shared/run_fingerprint hour=(hour) sealed_at=(sealed_at)}}`.
sum(cityHash64({{hour}}, {{sealed_at}}))
