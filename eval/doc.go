// Package eval measures generated images: the Fréchet distance between
// feature statistics (FID, computed as pytorch-fid does and interchangeable
// with its .npz statistics files), PSNR between images, and the tables and
// charts that summarize a metric over seeds.
//
// Metrics are registered by name (Register, Lookup, Metrics), as models
// are in package models: "psnr", "y-psnr" and "ssim" compare pairs of
// images (PairMetric), "fid", "kid" and "prdc" (precision, recall,
// density and coverage) two image sets through their features
// (SetMetric). A new metric is one file whose init function
// calls Register; docs/adding-a-metric.md walks through one.
//
// All arithmetic is float64. Functions that write files write a temporary
// file and rename it, so a file is never left half-written.
package eval
