-- The sealed hours of W (stats_sealed_hours.sql, asked first by the repository and bound
-- here) as WITH-list entries: the hours in [sealed_from, sealed_until) that are not in
-- `holes`. They are usually one run with no holes; holes are the hours inside the run that are
-- not sealed (rows arrived after sealing, not resealed yet). shared/unsealed_rows.sql turns
-- them into the condition that reads every other row of W, shared/in_sealed_hours.sql into the
-- one that reads the sealed rows. Constants: the primary key uses them.
-- Use inside a WITH list: `{{> shared/sealed_hours}},` (comma when more entries follow).
{sealed_from:DateTime64(3, 'UTC')} AS sealed_from,
{sealed_until:DateTime64(3, 'UTC')} AS sealed_until,
{holes:Array(DateTime('UTC'))} AS holes
