package dev.sqlagent.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A fixed schema for the pure tests of the static check (the service reads its own from the catalogue). */
final class TestSchemas {
  private TestSchemas() {}

  static VisibleSchema shop() {
    Map<String, List<String>> cols = Map.ofEntries(
        Map.entry("categories", List.of("cat_id", "cat_name", "descr")),
        Map.entry("suppliers", List.of("supp_id", "supp_name", "city", "phone", "gst_no", "is_active")),
        Map.entry("employees", List.of("emp_id", "emp_name", "role", "salary", "mgr_id", "join_dt")),
        Map.entry("customers", List.of("cust_id", "cust_name", "phone", "address", "is_credit_customer", "credit_limit", "created_dt")),
        Map.entry("products", List.of("prod_id", "prod_name", "sku", "cat_id", "unit", "sell_price", "stock_qty", "reorder_lvl", "created_dt")),
        Map.entry("tbl_prod_master_old", List.of("p_id", "p_name", "p_code", "rate", "active_flag")),
        Map.entry("purchase_orders", List.of("po_id", "supp_id", "po_dt", "expected_dt", "status")),
        Map.entry("po_lines", List.of("po_line_id", "po_id", "prod_id", "qty_ordered", "qty_received", "unit_cost")),
        Map.entry("stock_entries", List.of("entry_id", "prod_id", "supp_id", "po_id", "qty", "cost_price", "recv_dt", "recv_by")),
        Map.entry("bills", List.of("bill_id", "bill_no", "cust_id", "emp_id", "bill_dt", "total_amt", "discount_amt", "status")),
        Map.entry("bill_items", List.of("item_id", "bill_id", "prod_id", "qty", "price_at_sale", "line_total")),
        Map.entry("bill_archive", List.of("bill_id", "bill_no", "cust_name", "emp_name", "txn_dt", "amt", "status")),
        Map.entry("payments", List.of("pay_id", "bill_id", "pay_mode", "amt", "pay_dt")),
        Map.entry("stock_adjustments", List.of("adj_id", "prod_id", "emp_id", "qty_change", "reason", "adj_dt")),
        Map.entry("store_settings", List.of("setting_key", "setting_val")));
    List<VisibleSchema.Table> tables = new ArrayList<>();
    cols.forEach((t, cs) -> tables.add(new VisibleSchema.Table("public", t, true,
        cs.stream().map(c -> new VisibleSchema.Column(c, "text")).toList())));
    return VisibleSchema.of(tables, Set.of("agent_query_log", "public.agent_query_log"));
  }
}
