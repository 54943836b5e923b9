package configs_test

import (
	"fmt"

	"weft/configs"
)

func ExampleLoad() {
	c, err := configs.Load("default")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Machine.Cores, c.Cache.L1.SizeBytes)
	// Output: 8 32768
}

func ExampleConfig_Set() {
	c := configs.Default()
	for _, s := range []string{"cache.l1.size_bytes=65536", "sim.seed=7", "cache.l1.sise_bytes=1"} {
		if err := c.Set(s); err != nil {
			fmt.Println(err)
		}
	}
	if err := c.Validate(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(c.Cache.L1.SizeBytes, c.Sim.Seed)
	// Output:
	// set "cache.l1.sise_bytes=1": cache.l1.sise_bytes: unknown key; did you mean cache.l1.size_bytes?
	// 65536 7
}

func ExampleParse() {
	_, err := configs.Parse("cfg.toml", []byte("[cache.l1]\nassoc = 8\nsize_bytes = \"32k\"\n"))
	fmt.Println(err)
	// Output: cfg.toml:3: cache.l1.size_bytes: wrong type: expected an integer, found the string "32k"
}

func ExampleGet() {
	c := configs.Default()
	for _, key := range configs.Keys()[:3] {
		v, _ := configs.Get(c, key)
		fmt.Printf("%s = %s\n", key, v)
	}
	// Output:
	// sim.seed = 1
	// sim.max_cycles = 100000000
	// sim.jitter_cycles = 4
}
