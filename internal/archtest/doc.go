// Package archtest holds no code: its test checks the shape of the whole
// module, that every import runs down the floors of docs/architecture.md
// and that the packages meant to stay generic name no model, that nothing
// above package compute calls a kernel package, and that every Gorgonia op
// is built with internal/graphop.
package archtest
