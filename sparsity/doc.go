// Package sparsity computes N:M structured sparsity masks: at most N
// non-zero values in every block of M consecutive values along the
// reduction dimension of a matrix product, as sparse tensor cores take them
// (NVIDIA's 2:4).
//
// A Pattern names the structure ("2:4", or "dense"); a Scorer, found by name
// in a registry (Register, Lookup), gives every value a score, and Mask keeps
// the N highest-scoring values of each block, ties going to the lower index.
// The package is pure arithmetic on plain slices and imports nothing of the
// project; nn applies its masks to weights and gradients, policy names them.
//
// The slice written to is always named dst (or keep, for a mask), and comes
// first.
package sparsity
