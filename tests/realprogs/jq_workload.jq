def stats: {n: length, sum: add, min: min, max: max};
[ .[] | .score | floor ] as $f
| [ .[] | .score | sqrt | ceil ] as $s
| [ .[] | select(.name | test("^user[0-9]*5$")) | .id ] as $m
| [ .[] | .name | sub("user"; "u") | ascii_upcase ] as $u
| (group_by(.tags | length) | map({k: (.[0].tags | length), n: length})) as $g
| [ range(0; 100000) | (. * 3 + 1) % 7 - 2 ] as $r
| { floor: ($f | stats), ceil: ($s | stats), matched: ($m | length), upper: ($u | sort | .[0:3]),
    groups: $g, ints: ($r | stats), json: (.[0:2000] | tojson | fromjson | length),
    strs: ([ .[0:5000][] | .tags | join(",") | split(",") | length ] | add) }
