package suggest_test

import (
	"fmt"

	"weft/internal/suggest"
)

func ExampleClosest() {
	fmt.Println(suggest.Closest("mysql-binlg", []string{"fft", "lu", "mysql-binlog"}))
	fmt.Println(suggest.Closest("radix", []string{"fft", "lu", "mysql-binlog"}))
	// Output:
	// [mysql-binlog]
	// []
}

func ExampleDistance() {
	fmt.Println(suggest.Distance("kitten", "sitting"))
	// Output: 3
}
