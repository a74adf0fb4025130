/* The tree-sitter workload (tests/realprogs/programs.py, tree_sitter_json): parse a generated JSON
   document of 3,000 objects ROUNDS times with the JSON grammar. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tree_sitter/api.h"
const TSLanguage *tree_sitter_json(void);
int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    size_t cap = 1 << 20, len = 0;
    char *doc = malloc(cap);
    len += sprintf(doc + len, "[");
    for (int i = 0; i < 3000; i++)
        len += sprintf(doc + len, "%s{\"id\": %d, \"name\": \"item %d\", \"tags\": [\"a\", \"b\", %d.5], \"ok\": %s}", i ? "," : "", i, i, i, i % 2 ? "true" : "false");
    len += sprintf(doc + len, "]");
    TSParser *p = ts_parser_new();
    ts_parser_set_language(p, tree_sitter_json());
    unsigned long nodes = 0;
    for (int r = 0; r < rounds; r++) {
        TSTree *t = ts_parser_parse_string(p, NULL, doc, (uint32_t)len);
        nodes += ts_node_child_count(ts_tree_root_node(t));
        ts_tree_delete(t);
    }
    ts_parser_delete(p);
    printf("%lu\n", nodes);
    return 0;
}
