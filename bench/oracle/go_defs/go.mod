module codemap/bench/oracle/go_defs

go 1.19
