package dev.sqlagent.eval;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo shop's tables, columns and primary keys, written by hand from shop-schema.md, for fault-injection
 * tests that need no database; {@code ShopSchemaTest} checks it equals what discovery reads from the demo.
 */
final class ShopColumns {
  private ShopColumns() {}

  static final TableColumns SHOP = shop();

  static final FaultInjector INJECTOR = new FaultInjector(SHOP);

  private static TableColumns shop() {
    Map<String, List<String>> c = new LinkedHashMap<>();
    Map<String, String> pk = new LinkedHashMap<>();
    table(c, pk, "categories", "cat_id", "cat_name", "descr");
    table(c, pk, "suppliers", "supp_id", "supp_name", "city", "phone", "gst_no", "is_active");
    table(c, pk, "employees", "emp_id", "emp_name", "role", "salary", "mgr_id", "join_dt");
    table(c, pk, "customers", "cust_id", "cust_name", "phone", "address", "is_credit_customer", "credit_limit",
        "created_dt");
    table(c, pk, "products", "prod_id", "prod_name", "sku", "cat_id", "unit", "sell_price", "stock_qty",
        "reorder_lvl", "created_dt");
    table(c, pk, "tbl_prod_master_old", "p_id", "p_name", "p_code", "rate", "active_flag");
    table(c, pk, "stock_entries", "entry_id", "prod_id", "supp_id", "po_id", "qty", "cost_price", "recv_dt", "recv_by");
    table(c, pk, "purchase_orders", "po_id", "supp_id", "po_dt", "expected_dt", "status");
    table(c, pk, "po_lines", "po_line_id", "po_id", "prod_id", "qty_ordered", "qty_received", "unit_cost");
    table(c, pk, "bills", "bill_id", "bill_no", "cust_id", "emp_id", "bill_dt", "total_amt", "discount_amt", "status");
    table(c, pk, "bill_items", "item_id", "bill_id", "prod_id", "qty", "price_at_sale", "line_total");
    table(c, pk, "bill_archive", "bill_id", "bill_no", "cust_name", "emp_name", "txn_dt", "amt", "status");
    table(c, pk, "payments", "pay_id", "bill_id", "pay_mode", "amt", "pay_dt");
    table(c, pk, "stock_adjustments", "adj_id", "prod_id", "emp_id", "qty_change", "reason", "adj_dt");
    table(c, pk, "store_settings", "setting_key", "setting_val");
    return new TableColumns(Map.copyOf(c), Map.copyOf(pk));
  }

  /** The first column is the primary key. */
  private static void table(Map<String, List<String>> c, Map<String, String> pk, String name, String... cols) {
    c.put(name, List.of(cols));
    pk.put(name, cols[0]);
  }
}
