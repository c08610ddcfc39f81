package nn

// WatchGrad lets external tests record the gradient arriving at a node.
var WatchGrad = watchGrad
