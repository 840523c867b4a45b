module codemap/bench/oracle/go_calls

go 1.19
