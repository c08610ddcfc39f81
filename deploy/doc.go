// Package deploy exports a trained generator for inference only, as a
// .pgmodel file that hardware designers and embedding programs read: every
// tensor stored as its format's codes, bit-packed (a posit(6,1) weight
// takes 6 bits; an N:M-sparse layer's weights as their kept codes and
// in-block indices, see Sparsify), with each layer's formats and exponent biases, the output
// tanh approximation, the model configuration and the policy, in a
// versioned, checksummed container written atomically. docs/deployment.md
// gives the byte layout.
//
//	m, err := deploy.Export(checkpoint, policy) // nil policy: the checkpoint's, with its biases
//	err = m.Save("gen.pgmodel")
//	m, err = deploy.Load("gen.pgmodel")
//	images, err := m.Generate(z, labels)
//
// Generate rebuilds the network from the stored configuration (package
// models) and runs it with the stored formats and accumulation: its
// images are bit for bit those of the checkpoint run under the same
// policy (models.Load and gan.Sampler), because the stored weight codes
// decode to exactly the rounded weights the layers compute with, and the
// tensors that stay float32 (biases, batch norm) are stored as their
// float32 bits. Batch norm is therefore kept, not folded, unless Export
// is asked to fold it (FoldBatchNorm), which changes the weights and
// gives up bit identity with the checkpoint.
//
// The deployment table (positgan deploy-compare), which exports a
// float32 checkpoint in 8-bit and narrower posits and floats and measures
// each, is an experiment: experiment.DeployCompare. PositFor and
// FloatCandidates name the formats it tries.
package deploy
