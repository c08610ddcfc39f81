package main

// evalCmd groups the evaluation commands.
func evalCmd() *command {
	return &command{name: "eval", summary: "evaluate images and generators (fid, psnr, stats)"}
}
