// Package eval measures generated images: the Fréchet distance between
// feature statistics (FID, computed as pytorch-fid does and interchangeable
// with its .npz statistics files), PSNR between images, and the tables and
// charts that summarize a metric over seeds.
//
// All arithmetic is float64. Functions that write files write a temporary
// file and rename it, so a file is never left half-written.
package eval
