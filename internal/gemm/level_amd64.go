//go:build amd64 && !purego && !openblas

package gemm

// maxLevel is the highest level the package has kernels for.
const maxLevel = levelAVX512

// hasQuireAVX512 and hasQuireAVX2 select the quire GEMM's row loops.
var hasQuireAVX512, hasQuireAVX2 bool

// useLevel sets the drivers' micro-kernels and transpositions and the
// quire's row loops to those of level l and below.
func useLevel(l level) {
	levelInUse = l
	hasQuireAVX2, hasQuireAVX512 = l >= levelAVX2, l >= levelAVX512
	hasIm2colAVX2 = l >= levelAVX2
	s, d := kernels[float32](), kernels[float64]()
	sgemmDriver.kernelInfo, dgemmDriver.kernelInfo = s[len(s)-1], d[len(d)-1]
	sgemmDriver.transpose, sgemmDriver.tw = nil, 0
	dgemmDriver.transpose, dgemmDriver.tw = nil, 0
	sgemmDriver.copyRows, dgemmDriver.copyRows = nil, nil
	sgemmDriver.transpose6 = nil
	if l >= levelAVX2 {
		sgemmDriver.copyRows, dgemmDriver.copyRows = copyRows, copyRows
		sgemmDriver.transpose, sgemmDriver.tw = transpose8, 8
		sgemmDriver.transpose6 = transpose6
		dgemmDriver.transpose, dgemmDriver.tw = transpose4d, 4
	}
	if l >= levelAVX512 {
		dgemmDriver.transpose, dgemmDriver.tw = transpose8d, 8
	}
}
