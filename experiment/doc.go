// Package experiment compares quantization policies: a Sweep trains one
// GAN in several policies over several seeds, measures an FID for every
// run's generator and tabulates the results (Compare). It is what
// positgan compare runs, as a library for notebooks and other programs.
//
// A sweep lives in one folder, Sweep.Out, and is resumable: Compare skips
// the runs whose result.json matches the sweep and continues half-trained
// runs from their checkpoints, bit for bit. The folder holds
//
//	<policy>/seed<k>/               one run: checkpoint.safetensors, log.csv,
//	                                samples.png and result.json (a Result)
//	reference_<features>_n<N>_seed<S>.npz
//	                                feature statistics of the real images
//	results.md, results.csv         mean ± std over seeds per policy
//	runs.csv                        one line per run
//	fid.png                         bar chart of the FID
//	grids/<policy>.png, grids.png   the first seed's sample grids
//
// A Plan is a sweep written down as its list of runs (NewPlan, WritePlan),
// for several processes or machines: RunPlan trains one Shard of it
// (runs i mod n), claiming each run's folder, and Merge gathers the
// finished runs of one or more output roots into the same files.
// Kubernetes and Slurm write launchers for the shards.
//
// A model that does not make images from noise is measured by the
// Evaluator its models.Spec carries: CycleGAN by the FID of each
// direction of translation (models.TranslationFID, also what positgan
// translate --fid prints), the table showing those figures in place of
// the FID. The package names no model.
//
// DeployCompare measures the deployment table of a float32 checkpoint
// (positgan deploy-compare): its generator exported (package deploy) and
// run in 8-bit and narrower posits and floats, searching every float
// split and the exponent biases, with FID, PSNR against float32, file
// size and the weights that round to zero or saturate.
//
// The other commands of positgan have their library here too, so that a
// notebook does what the command does: TrainRuns, TrainRun.Start and
// ParsePolicies lay out and start positgan train's runs in several
// policies, Progress shows their steps, and WriteRunConfig and
// ApplyRunConfig write and read their run.toml; Sample draws a
// checkpoint's grid and Samples.Write writes it (positgan sample);
// SetStats and SetFeatures read the image sets positgan eval measures
// (statistics files, checkpoints, data sets); TranslationSource and
// TranslateFiles are positgan translate's files, UpscaleFiles (Upscale
// and WriteCropComparison for one image) positgan upscale's; NPYStack
// and WriteOutputsNPY write the float32 outputs of --npy.
//
// GeneratorStats is the FID pipeline of a generator checkpoint, shared
// with positgan eval. Every call into packages gan and models is in
// train.go, but for the deployment table's noise and grids.
package experiment
