/* Deterministic SQLite workload for the gmonlens benchmarks (bench/sqlite_prog.py builds it with
 * the SQLite amalgamation and -pg).  Usage: sqlite_workload [SCALE] [DBFILE]
 * SCALE (default 1) multiplies every row count; DBFILE defaults to bench.db (deleted first).
 * Exercises: DDL, prepared inserts in transactions, indexes, joins, GROUP BY, ORDER BY (sorter),
 * window functions, updates, deletes, subqueries, JSON, FTS5, an R*Tree, VACUUM and an integrity check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite3.h"

static sqlite3 *db;
static unsigned long long checksum;

static void die(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void exec(const char *sql)
{
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "%s\n-- %s\n", err, sql);
        exit(1);
    }
}

/* Runs a query and folds every column of every row into the checksum. */
static void query(const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) die(sql);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int n = sqlite3_column_count(st);
        for (int i = 0; i < n; i++) {
            const unsigned char *t = sqlite3_column_text(st, i);
            if (t) for (; *t; t++) checksum = checksum * 131u + *t;
        }
    }
    sqlite3_finalize(st);
}

static unsigned rng_state = 12345u;
static unsigned rnd(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static const char *words[] = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
    "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "profile", "sample", "arc", "cycle",
};
#define NWORDS (sizeof words / sizeof words[0])

static void phrase(char *buf, size_t cap, int nw)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < nw && len + 16 < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " " : "", words[rnd() % NWORDS]);
}

static void load(int scale)
{
    sqlite3_stmt *cust, *item, *ord, *line, *doc, *box;
    char name[128], body[512];
    int ncust = 2000 * scale, nitem = 1000 * scale, nord = 20000 * scale;

    exec("CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, city TEXT, score REAL);"
         "CREATE TABLE item(id INTEGER PRIMARY KEY, title TEXT, price REAL, stock INT);"
         "CREATE TABLE orders(id INTEGER PRIMARY KEY, cust INT REFERENCES customer(id), day INT, note TEXT);"
         "CREATE TABLE line(ord INT, item INT, qty INT, PRIMARY KEY(ord, item)) WITHOUT ROWID;"
         "CREATE VIRTUAL TABLE doc USING fts5(title, body);"
         "CREATE VIRTUAL TABLE box USING rtree(id, x0, x1, y0, y1);");
    if (sqlite3_prepare_v2(db, "INSERT INTO customer VALUES(?,?,?,?)", -1, &cust, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO item VALUES(?,?,?,?)", -1, &item, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO orders VALUES(?,?,?,?)", -1, &ord, NULL) ||
        sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO line VALUES(?,?,?)", -1, &line, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO doc VALUES(?,?)", -1, &doc, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO box VALUES(?,?,?,?,?)", -1, &box, NULL))
        die("prepare");

    exec("BEGIN");
    for (int i = 1; i <= ncust; i++) {
        phrase(name, sizeof name, 2);
        sqlite3_bind_int(cust, 1, i);
        sqlite3_bind_text(cust, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(cust, 3, words[rnd() % 12], -1, SQLITE_STATIC);
        sqlite3_bind_double(cust, 4, (rnd() % 10000) / 100.0);
        if (sqlite3_step(cust) != SQLITE_DONE) die("customer");
        sqlite3_reset(cust);
    }
    for (int i = 1; i <= nitem; i++) {
        phrase(name, sizeof name, 3);
        sqlite3_bind_int(item, 1, i);
        sqlite3_bind_text(item, 2, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_double(item, 3, 1 + (rnd() % 50000) / 100.0);
        sqlite3_bind_int(item, 4, (int)(rnd() % 500));
        if (sqlite3_step(item) != SQLITE_DONE) die("item");
        sqlite3_reset(item);
    }
    exec("COMMIT");

    for (int batch = 0; batch < nord; batch += 1000) {
        exec("BEGIN");
        for (int i = batch + 1; i <= batch + 1000 && i <= nord; i++) {
            phrase(body, 64, 4);
            sqlite3_bind_int(ord, 1, i);
            sqlite3_bind_int(ord, 2, (int)(1 + rnd() % (unsigned)ncust));
            sqlite3_bind_int(ord, 3, (int)(rnd() % 365));
            sqlite3_bind_text(ord, 4, body, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(ord) != SQLITE_DONE) die("orders");
            sqlite3_reset(ord);
            for (int k = 0, n = 1 + (int)(rnd() % 5); k < n; k++) {
                sqlite3_bind_int(line, 1, i);
                sqlite3_bind_int(line, 2, (int)(1 + rnd() % (unsigned)nitem));
                sqlite3_bind_int(line, 3, (int)(1 + rnd() % 9));
                if (sqlite3_step(line) != SQLITE_DONE) die("line");
                sqlite3_reset(line);
            }
        }
        exec("COMMIT");
    }

    exec("BEGIN");
    for (int i = 1; i <= 3000 * scale; i++) {
        phrase(name, sizeof name, 3);
        phrase(body, sizeof body, 40);
        sqlite3_bind_text(doc, 1, name, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(doc, 2, body, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(doc) != SQLITE_DONE) die("doc");
        sqlite3_reset(doc);
        double x = rnd() % 1000, y = rnd() % 1000;
        sqlite3_bind_int(box, 1, i);
        sqlite3_bind_double(box, 2, x);
        sqlite3_bind_double(box, 3, x + 1 + rnd() % 20);
        sqlite3_bind_double(box, 4, y);
        sqlite3_bind_double(box, 5, y + 1 + rnd() % 20);
        if (sqlite3_step(box) != SQLITE_DONE) die("box");
        sqlite3_reset(box);
    }
    exec("COMMIT");
    sqlite3_finalize(cust);
    sqlite3_finalize(item);
    sqlite3_finalize(ord);
    sqlite3_finalize(line);
    sqlite3_finalize(doc);
    sqlite3_finalize(box);
}

static void queries(int scale)
{
    char sql[512];
    exec("CREATE INDEX orders_cust ON orders(cust, day);"
         "CREATE INDEX item_price ON item(price);"
         "CREATE INDEX customer_city ON customer(city, score DESC);"
         "ANALYZE;");
    for (int rep = 0; rep < 3 * scale; rep++) {
        query("SELECT c.city, count(*), sum(l.qty * i.price), avg(i.price) FROM orders o "
              "JOIN customer c ON c.id = o.cust JOIN line l ON l.ord = o.id JOIN item i ON i.id = l.item "
              "GROUP BY c.city ORDER BY 3 DESC");
        query("SELECT name, score, rank() OVER (PARTITION BY city ORDER BY score DESC) AS r "
              "FROM customer ORDER BY city, r LIMIT 500");
        query("SELECT o.day, count(DISTINCT o.cust), total(l.qty) FROM orders o JOIN line l ON l.ord = o.id "
              "WHERE o.day BETWEEN 30 AND 200 GROUP BY o.day HAVING count(*) > 3 ORDER BY o.day");
        query("SELECT title, price FROM item WHERE id IN (SELECT item FROM line GROUP BY item "
              "ORDER BY sum(qty) DESC LIMIT 50) ORDER BY price");
        query("SELECT note, day FROM orders ORDER BY note, day DESC LIMIT 100 OFFSET 1000");
        query("SELECT upper(substr(name, 1, 5)) || '-' || length(name), printf('%08.3f', score) "
              "FROM customer WHERE name LIKE '%a%o%' ORDER BY 1");
        query("SELECT json_group_array(json_object('id', id, 'title', title, 'p', round(price, 1))) "
              "FROM item WHERE stock < 100");
        query("WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000) "
              "SELECT sum(x * x) % 1000003, max(sqrt(x)) FROM n");
        snprintf(sql, sizeof sql, "SELECT rowid, bm25(doc) FROM doc WHERE doc MATCH '%s AND %s' "
                 "ORDER BY bm25(doc) LIMIT 20", words[rep % NWORDS], words[(rep * 7 + 3) % NWORDS]);
        query(sql);
        query("SELECT count(*) FROM box WHERE x0 > 100 AND x1 < 400 AND y0 > 200 AND y1 < 700");
    }
    exec("BEGIN;"
         "UPDATE item SET price = price * 1.05 WHERE stock < 50;"
         "UPDATE customer SET score = score + 1 WHERE city IN ('alpha', 'delta', 'golf');"
         "DELETE FROM line WHERE qty = 1 AND ord % 3 = 0;"
         "DELETE FROM orders WHERE id NOT IN (SELECT ord FROM line);"
         "COMMIT;");
    exec("VACUUM");
    query("PRAGMA integrity_check");
}

/* Optional features, compiled in only when the build enables them (the real-program tier does,
 * tests/realprogs/programs.py; the benchmark build does not, so its program is unchanged). */
static void features(void)
{
#ifdef SQLITE_ENABLE_SESSION
    sqlite3_session *ses;
    int n = 0, ni = 0;
    void *changes = NULL, *inv = NULL;
    if (sqlite3session_create(db, "main", &ses) != SQLITE_OK) die("session");
    if (sqlite3session_attach(ses, NULL) != SQLITE_OK) die("session attach");
    exec("UPDATE item SET stock = stock + 1 WHERE id % 7 = 0; DELETE FROM customer WHERE id % 97 = 0;");
    if (sqlite3session_changeset(ses, &n, &changes) != SQLITE_OK) die("changeset");
    if (sqlite3changeset_invert(n, changes, &ni, &inv) != SQLITE_OK) die("invert");
    checksum += (unsigned)n + (unsigned)ni;
    sqlite3_free(inv);
    sqlite3_free(changes);
    sqlite3session_delete(ses);
#endif
#ifdef SQLITE_ENABLE_GEOPOLY
    exec("CREATE VIRTUAL TABLE poly USING geopoly(tag);"
         "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 300) "
         "INSERT INTO poly(_shape, tag) SELECT geopoly_regular(i % 50, i % 37, 3 + i % 5, 5 + i % 9), i FROM k;");
    query("SELECT count(*), sum(geopoly_area(_shape)) FROM poly WHERE geopoly_overlap(_shape, "
          "geopoly_regular(25, 18, 12, 8))");
    query("SELECT geopoly_json(geopoly_bbox(_shape)) FROM poly WHERE tag % 50 = 0");
#endif
#ifdef SQLITE_ENABLE_FTS4
    exec("CREATE VIRTUAL TABLE doc4 USING fts4(title, body); INSERT INTO doc4 SELECT title, body FROM doc;");
    query("SELECT count(*), sum(length(offsets(doc4))) FROM doc4 WHERE doc4 MATCH 'alpha OR zulu'");
#endif
#ifdef SQLITE_ENABLE_PERCENTILE
    query("SELECT median(price), percentile(price, 90), percentile_cont(stock, 0.25) FROM item");
#endif
#ifdef SQLITE_ENABLE_OFFSET_SQL_FUNC
    query("SELECT sum(sqlite_offset(name)) FROM customer");
#endif
#ifdef SQLITE_ENABLE_DBSTAT_VTAB
    query("SELECT name, sum(pgsize), sum(ncell) FROM dbstat GROUP BY name ORDER BY name");
#endif
#ifdef SQLITE_ENABLE_DBPAGE_VTAB
    query("SELECT count(*), sum(length(data)) FROM sqlite_dbpage");
#endif
#ifdef SQLITE_ENABLE_BYTECODE_VTAB
    query("SELECT opcode, count(*) FROM bytecode('SELECT * FROM customer WHERE city = ''alpha''') GROUP BY 1");
#endif
#ifdef SQLITE_ENABLE_STMTVTAB
    query("SELECT count(*), sum(run) FROM sqlite_stmt");
#endif
#ifdef SQLITE_ENABLE_COLUMN_METADATA
    const char *type, *coll;
    int notnull, pk, autoinc;
    if (sqlite3_table_column_metadata(db, NULL, "item", "price", &type, &coll, &notnull, &pk, &autoinc))
        die("column metadata");
    checksum += strlen(type) + (unsigned)pk;
#endif
#ifdef SQLITE_ENABLE_NORMALIZE
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT * FROM item WHERE price > 10.5 AND title = 'x'", -1, &st, NULL))
        die("normalize");
    checksum += strlen(sqlite3_normalized_sql(st));
    sqlite3_finalize(st);
#endif
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    const char *path = argc > 2 ? argv[2] : "bench.db";
    if (scale < 1) scale = 1;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK) die("open");
    exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -8000;");
    load(scale);
    queries(scale);
    features();
    sqlite3_close(db);
    unlink(path);
    printf("%llu\n", checksum);
    return 0;
}
