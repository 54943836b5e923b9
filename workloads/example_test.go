package workloads_test

import (
	"fmt"

	"weft/workloads"
)

func ExampleLookup() {
	e, err := workloads.Lookup("mysql-binlog")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Name, e.Class, e.Rows, e.Bug)
	// Output: mysql-binlog atomicity [pset:5 bugaboo:10 conseq:MySQL1] true
}

func ExampleList() {
	for _, e := range workloads.List() {
		if e.Bug {
			fmt.Println(e.Name, e.Class)
		}
	}
	// Output:
	// counter-race race
	// mysql-binlog atomicity
	// pbzip2-uaf order
}
