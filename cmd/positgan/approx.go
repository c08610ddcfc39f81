package main

// approxCmd groups the commands for sigmoid/tanh approximations.
func approxCmd() *command {
	return &command{name: "approx", summary: "posit sigmoid/tanh approximations (table, eval)"}
}
