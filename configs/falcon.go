package configs

// Falcon is the `[falcon]` table: the settings of the Falcon detector
// (`weft run --detectors falcon`; `weft reproduce falcon` varies them).
type Falcon struct {
	// Window is each location's window capacity W, 3 (the longest
	// pattern) to MaxFalconWindow
	// (the paper's Study 2: 5; its Study 1: 50).
	Window int `toml:"window"`
	// Granularity is a location: "word" or "line" (a cache line of
	// cache.line_bytes).
	Granularity string `toml:"granularity"`
	// Score ranks patterns: "jaccard" (Falcon's) or "tarantula".
	Score string `toml:"score"`
	// Scope is the code Falcon instruments: "app" (not the functions
	// named lib_*, as the paper's instrumentation left the libraries out)
	// or "all".
	Scope string `toml:"scope"`
	// KeyByAddr keeps the location in a pattern's key, so the same
	// instructions on two locations are two patterns.
	KeyByAddr bool `toml:"key_by_addr"`
}

// MaxFalconWindow is the largest falcon.window.
const MaxFalconWindow = 1024

// defaultFalcon is the paper's Study 2 setting.
func defaultFalcon() Falcon {
	return Falcon{Window: 5, Granularity: "word", Score: "jaccard", Scope: "app"}
}

// falconProblems checks the [falcon] keys.
func (c *Config) falconProblems(bad func(key, format string, args ...any)) {
	f := c.Falcon
	if f.Window < 3 || f.Window > MaxFalconWindow {
		bad("falcon.window", "must be from 3 (the longest pattern) to %d, got %d", MaxFalconWindow, f.Window)
	}
	oneOf := func(key, v string, allowed ...string) { checkOneOf(bad, key, v, allowed) }
	oneOf("falcon.granularity", f.Granularity, "word", "line")
	oneOf("falcon.score", f.Score, "jaccard", "tarantula")
	oneOf("falcon.scope", f.Scope, "app", "all")
}
