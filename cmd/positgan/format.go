package main

import (
	"flag"
)

// formatCmd groups the commands that inspect number formats.
func formatCmd() *command {
	return &command{name: "format", summary: "inspect number formats (table, quantize, info)", sub: []*command{
		{name: "table", usage: "FORMAT", summary: "print every code of a format of at most 16 bits as CSV code,value",
			setup: func(fs *flag.FlagSet) func([]string, stdio) error {
				return func(args []string, io stdio) error { return usagef("not implemented yet") }
			}},
	}}
}
