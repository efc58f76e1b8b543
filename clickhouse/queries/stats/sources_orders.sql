-- The funnel per segment value of stats/sources.sql under the revenue source 'orders' (services/
-- dashboard/docs/statistics.md, "Revenue source"): purchasers, chatted_purchasers and revenue
-- from the shop's orders placed in W (latest state, net EUR; after chat within {window_days}
-- days before the order: shared/window_orders_after_chat.sql); visitors and chatted as there.
{{> shared/sources_funnel purchases=(SELECT * FROM {{> shared/window_orders_after_chat}})}}
