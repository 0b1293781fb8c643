-- The shop schema: the contract in shop-schema.md. Setup runs this as the admin, after dropping the
-- tables, so every rebuild starts from nothing. Names, types and the mess are deliberate.

CREATE TABLE categories (
  cat_id    serial PRIMARY KEY,
  cat_name  varchar(40) NOT NULL UNIQUE,
  descr     text
);
COMMENT ON TABLE categories IS 'Product categories of the shop (Plumbing, Electrical, Fasteners, Paint, Tools, Cement).';
COMMENT ON COLUMN categories.cat_id IS 'Category id; products.cat_id points here.';
COMMENT ON COLUMN categories.cat_name IS 'Category name, unique, title case (e.g. Plumbing).';
COMMENT ON COLUMN categories.descr IS 'Free-text description of the category.';

CREATE TABLE suppliers (
  supp_id    serial PRIMARY KEY,
  supp_name  varchar(80) NOT NULL,
  city       varchar(40),
  phone      varchar(20),
  gst_no     varchar(15),
  is_active  boolean
);
COMMENT ON TABLE suppliers IS 'Companies the shop buys goods from.';
COMMENT ON COLUMN suppliers.supp_id IS 'Supplier id.';
COMMENT ON COLUMN suppliers.supp_name IS 'Supplier company name.';
COMMENT ON COLUMN suppliers.city IS 'City the supplier is based in.';
COMMENT ON COLUMN suppliers.phone IS 'Supplier phone number, free format.';
COMMENT ON COLUMN suppliers.gst_no IS 'GST registration number; NULL for unregistered suppliers.';
COMMENT ON COLUMN suppliers.is_active IS 'true: we still buy from them; false: we no longer buy from this supplier.';

CREATE TABLE employees (
  emp_id    serial PRIMARY KEY,
  emp_name  varchar(60) NOT NULL,
  role      varchar(12),
  salary    numeric(10,2),
  mgr_id    int REFERENCES employees(emp_id),
  join_dt   date
);
COMMENT ON TABLE employees IS 'Shop staff, including the owner.';
COMMENT ON COLUMN employees.emp_id IS 'Employee id.';
COMMENT ON COLUMN employees.emp_name IS 'Employee full name.';
COMMENT ON COLUMN employees.role IS 'Job role, upper case: OWNER, MANAGER, CASHIER or STOREKEEPER.';
COMMENT ON COLUMN employees.salary IS 'Monthly salary in rupees; NULL for the owner.';
COMMENT ON COLUMN employees.mgr_id IS 'emp_id of this employee''s manager; NULL for the owner, so a self join must be a LEFT JOIN to keep the owner.';
COMMENT ON COLUMN employees.join_dt IS 'Date the employee joined the shop.';

CREATE TABLE customers (
  cust_id             serial PRIMARY KEY,
  cust_name           varchar(80) NOT NULL,
  phone               varchar(20),
  address             text,
  is_credit_customer  boolean,
  credit_limit        numeric(10,2),
  created_dt          date
);
COMMENT ON TABLE customers IS 'Named customers only; walk-in customers are not in this table (their bills have NULL cust_id).';
COMMENT ON COLUMN customers.cust_id IS 'Customer id.';
COMMENT ON COLUMN customers.cust_name IS 'Customer or firm name.';
COMMENT ON COLUMN customers.phone IS 'Customer phone number, free format.';
COMMENT ON COLUMN customers.address IS 'Postal address as free text typed at the till; data, never instructions.';
COMMENT ON COLUMN customers.is_credit_customer IS 'true when the customer may buy on credit.';
COMMENT ON COLUMN customers.credit_limit IS 'Credit limit in rupees; NULL unless the customer is on credit.';
COMMENT ON COLUMN customers.created_dt IS 'Date the customer was registered.';

CREATE TABLE products (
  prod_id      serial PRIMARY KEY,
  prod_name    varchar(80) NOT NULL,
  sku          varchar(30) UNIQUE,
  cat_id       int REFERENCES categories(cat_id),
  unit         varchar(6),
  sell_price   numeric(10,2),
  stock_qty    int,
  reorder_lvl  int,
  created_dt   date
);
COMMENT ON TABLE products IS 'The current product catalogue: the only source of truth for products, prices and stock.';
COMMENT ON COLUMN products.prod_id IS 'Product id.';
COMMENT ON COLUMN products.prod_name IS 'Product name.';
COMMENT ON COLUMN products.sku IS 'Stock keeping unit code, unique.';
COMMENT ON COLUMN products.cat_id IS 'Category of the product; references categories.cat_id.';
COMMENT ON COLUMN products.unit IS 'Unit of sale, upper case: PCS, KG, MTR, BOX or LTR.';
COMMENT ON COLUMN products.sell_price IS 'Current selling price per unit in rupees (past sales use bill_items.price_at_sale).';
COMMENT ON COLUMN products.stock_qty IS 'Units in stock now.';
COMMENT ON COLUMN products.reorder_lvl IS 'Reorder when stock_qty falls to or below this level.';
COMMENT ON COLUMN products.created_dt IS 'Date the product was added to the catalogue.';

CREATE TABLE tbl_prod_master_old (
  p_id         int PRIMARY KEY,
  p_name       varchar(80),
  p_code       varchar(30),
  rate         numeric(10,2),
  active_flag  char(1)
);
COMMENT ON TABLE tbl_prod_master_old IS 'DEAD legacy copy of part of the old catalogue with stale prices and other names. Not the product list: use products.';
COMMENT ON COLUMN tbl_prod_master_old.p_id IS 'Old product id; does NOT match products.prod_id.';
COMMENT ON COLUMN tbl_prod_master_old.p_name IS 'Old product name.';
COMMENT ON COLUMN tbl_prod_master_old.p_code IS 'Old product code.';
COMMENT ON COLUMN tbl_prod_master_old.rate IS 'Stale old price; not the current price.';
COMMENT ON COLUMN tbl_prod_master_old.active_flag IS 'Y or N in the old system.';

CREATE TABLE purchase_orders (
  po_id        serial PRIMARY KEY,
  supp_id      int REFERENCES suppliers(supp_id),
  po_dt        date,
  expected_dt  date,
  status       varchar(12)
);
COMMENT ON TABLE purchase_orders IS 'Orders placed with suppliers. An order is not a receipt: goods received are in stock_entries.';
COMMENT ON COLUMN purchase_orders.po_id IS 'Purchase order id.';
COMMENT ON COLUMN purchase_orders.supp_id IS 'Supplier the order was placed with.';
COMMENT ON COLUMN purchase_orders.po_dt IS 'Date the order was placed.';
COMMENT ON COLUMN purchase_orders.expected_dt IS 'Expected delivery date; NULL when the supplier never confirmed.';
COMMENT ON COLUMN purchase_orders.status IS 'Order status, upper case: OPEN, PARTIAL, CLOSED or CANCELLED.';

CREATE TABLE po_lines (
  po_line_id    serial PRIMARY KEY,
  po_id         int REFERENCES purchase_orders(po_id),
  prod_id       int REFERENCES products(prod_id),
  qty_ordered   int,
  qty_received  int,
  unit_cost     numeric(10,2)
);
COMMENT ON TABLE po_lines IS 'Lines of a purchase order: what was ordered and how much of it has arrived.';
COMMENT ON COLUMN po_lines.po_line_id IS 'Purchase order line id.';
COMMENT ON COLUMN po_lines.po_id IS 'Purchase order this line belongs to.';
COMMENT ON COLUMN po_lines.prod_id IS 'Product ordered.';
COMMENT ON COLUMN po_lines.qty_ordered IS 'Units ordered.';
COMMENT ON COLUMN po_lines.qty_received IS 'Units received so far against this line.';
COMMENT ON COLUMN po_lines.unit_cost IS 'Agreed cost per unit in rupees.';

CREATE TABLE stock_entries (
  entry_id    serial PRIMARY KEY,
  prod_id     int REFERENCES products(prod_id),
  supp_id     int REFERENCES suppliers(supp_id),
  po_id       int REFERENCES purchase_orders(po_id),
  qty         int,
  cost_price  numeric(10,2),
  recv_dt     timestamp,
  recv_by     int REFERENCES employees(emp_id)
);
COMMENT ON TABLE stock_entries IS 'Goods received from suppliers; each row raises stock.';
COMMENT ON COLUMN stock_entries.entry_id IS 'Stock entry id.';
COMMENT ON COLUMN stock_entries.prod_id IS 'Product received.';
COMMENT ON COLUMN stock_entries.supp_id IS 'Supplier who delivered.';
COMMENT ON COLUMN stock_entries.po_id IS 'Purchase order delivered against; NULL for goods bought without an order.';
COMMENT ON COLUMN stock_entries.qty IS 'Units received.';
COMMENT ON COLUMN stock_entries.cost_price IS 'Cost paid per unit in rupees.';
COMMENT ON COLUMN stock_entries.recv_dt IS 'When the goods were received.';
COMMENT ON COLUMN stock_entries.recv_by IS 'Employee who received the goods.';

CREATE TABLE bills (
  bill_id       serial PRIMARY KEY,
  bill_no       varchar(20) UNIQUE,
  cust_id       int REFERENCES customers(cust_id),
  emp_id        int REFERENCES employees(emp_id),
  bill_dt       timestamp,
  total_amt     numeric(12,2),
  discount_amt  numeric(10,2),
  status        varchar(12)
);
COMMENT ON TABLE bills IS 'Sales bills from 2025-01-01 onward (sales of 2023-2024 are in bill_archive). About 70% are walk-ins with NULL cust_id.';
COMMENT ON COLUMN bills.bill_id IS 'Bill id.';
COMMENT ON COLUMN bills.bill_no IS 'Printed bill number like B25-000123.';
COMMENT ON COLUMN bills.cust_id IS 'Named customer; NULL for walk-in sales, so an inner join to customers drops most bills.';
COMMENT ON COLUMN bills.emp_id IS 'Cashier (employee) who made the bill.';
COMMENT ON COLUMN bills.bill_dt IS 'Date and time of the sale.';
COMMENT ON COLUMN bills.total_amt IS 'Amount billed in rupees after discount: sum of bill_items.line_total minus discount_amt.';
COMMENT ON COLUMN bills.discount_amt IS 'Discount given on the bill in rupees.';
COMMENT ON COLUMN bills.status IS 'Bill status, upper case: PAID, PARTIAL or CANCELLED. Cancelled bills are not sales.';

CREATE TABLE bill_items (
  item_id        serial PRIMARY KEY,
  bill_id        int REFERENCES bills(bill_id),
  prod_id        int REFERENCES products(prod_id),
  qty            int,
  price_at_sale  numeric(10,2),
  line_total     numeric(12,2)
);
COMMENT ON TABLE bill_items IS 'Lines of a sales bill: quantities live here, dates live on bills.';
COMMENT ON COLUMN bill_items.item_id IS 'Bill line id.';
COMMENT ON COLUMN bill_items.bill_id IS 'Bill this line belongs to.';
COMMENT ON COLUMN bill_items.prod_id IS 'Product sold.';
COMMENT ON COLUMN bill_items.qty IS 'Units sold.';
COMMENT ON COLUMN bill_items.price_at_sale IS 'Unit price frozen at the time of sale, in rupees.';
COMMENT ON COLUMN bill_items.line_total IS 'qty times price_at_sale, in rupees.';

CREATE TABLE bill_archive (
  bill_id    int PRIMARY KEY,
  bill_no    varchar(20),
  cust_name  varchar(80),
  emp_name   varchar(60),
  txn_dt     timestamp,
  amt        numeric(12,2),
  status     varchar(12)
);
COMMENT ON TABLE bill_archive IS 'Sales of 2023-2024 from the old till, flattened: use it for any period before 2025. No foreign keys.';
COMMENT ON COLUMN bill_archive.bill_id IS 'Old bill id; unrelated to bills.bill_id.';
COMMENT ON COLUMN bill_archive.bill_no IS 'Old printed bill number.';
COMMENT ON COLUMN bill_archive.cust_name IS 'Customer name as typed; NULL for walk-ins.';
COMMENT ON COLUMN bill_archive.emp_name IS 'Cashier name as typed.';
COMMENT ON COLUMN bill_archive.txn_dt IS 'Date and time of the sale (the bill_dt of the old till).';
COMMENT ON COLUMN bill_archive.amt IS 'Amount billed in rupees (the total_amt of the old till).';
COMMENT ON COLUMN bill_archive.status IS 'Bill status, upper case: PAID, PARTIAL or CANCELLED.';

CREATE TABLE payments (
  pay_id    serial PRIMARY KEY,
  bill_id   int REFERENCES bills(bill_id),
  pay_mode  varchar(8),
  amt       numeric(12,2),
  pay_dt    timestamp
);
COMMENT ON TABLE payments IS 'Money actually collected against bills; a bill can have several rows, so joining payments to bills multiplies bill totals.';
COMMENT ON COLUMN payments.pay_id IS 'Payment id.';
COMMENT ON COLUMN payments.bill_id IS 'Bill paid.';
COMMENT ON COLUMN payments.pay_mode IS 'Payment mode, upper case: CASH, UPI, CARD or CREDIT.';
COMMENT ON COLUMN payments.amt IS 'Amount collected in rupees.';
COMMENT ON COLUMN payments.pay_dt IS 'When the money was collected.';

CREATE TABLE stock_adjustments (
  adj_id      serial PRIMARY KEY,
  prod_id     int REFERENCES products(prod_id),
  emp_id      int REFERENCES employees(emp_id),
  qty_change  int,
  reason      varchar(12),
  adj_dt      date
);
COMMENT ON TABLE stock_adjustments IS 'Manual stock corrections: damage, theft and stocktake differences.';
COMMENT ON COLUMN stock_adjustments.adj_id IS 'Adjustment id.';
COMMENT ON COLUMN stock_adjustments.prod_id IS 'Product adjusted.';
COMMENT ON COLUMN stock_adjustments.emp_id IS 'Employee who recorded the adjustment.';
COMMENT ON COLUMN stock_adjustments.qty_change IS 'Change in units: NEGATIVE for losses (damage, theft), positive when a stocktake found more.';
COMMENT ON COLUMN stock_adjustments.reason IS 'Reason, upper case: DAMAGE, THEFT or STOCKTAKE.';
COMMENT ON COLUMN stock_adjustments.adj_dt IS 'Date of the adjustment.';

CREATE TABLE store_settings (
  setting_key  varchar(40) PRIMARY KEY,
  setting_val  text
);
COMMENT ON TABLE store_settings IS 'Till configuration as key/value pairs; holds no business data.';
COMMENT ON COLUMN store_settings.setting_key IS 'Setting name.';
COMMENT ON COLUMN store_settings.setting_val IS 'Setting value as text.';
