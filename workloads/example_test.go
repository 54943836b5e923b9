package workloads_test

import (
	"fmt"

	"weft/workloads"
)

func ExampleLookup() {
	e, err := workloads.Lookup("pbzip2-uaf")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.Name, e.Kind, e.Class, e.Bug)
	// Output: pbzip2-uaf kernel order true
}

func ExampleList() {
	kinds := map[workloads.Kind]bool{}
	for _, e := range workloads.List() {
		kinds[e.Kind] = true
	}
	fmt.Println(kinds[workloads.Kernel], kinds[workloads.Profile])
	// Output: true true
}

func ExampleRowKernels() {
	fmt.Println(workloads.RowKernels()["pset:5"])
	// Output: [mysql-binlog]
}
