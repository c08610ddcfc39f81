// Package policy says which quantizer each tensor role of each layer uses:
// presets (posit8+, fp8-ibm, the paper rows ...), TOML files, and settings
// such as "G/*:weight=posit(8,1,scale=4)" matched to layer names by glob.
// A Policy's For gives a layer's nn.LayerFormats; the layers of package nn
// apply them.
package policy
