// Package imageio reads image files into the pixels PIL gives for
// Image.open(path).convert("RGB"), the way pytorch-fid, torchvision's
// ImageFolder and the reference CycleGAN and ESRGAN code read their data,
// so that metrics computed here on real image folders agree with theirs.
//
// JPEG is decoded by our own decoder, bit-exact with libjpeg-turbo's
// defaults (PIL's): the islow integer IDCT, "fancy" triangle-filter
// chroma upsampling and libjpeg's fixed-point YCbCr→RGB; baseline,
// extended and progressive files, every chroma subsampling Go's
// image/jpeg reads, gray, RGB and CMYK. Go's own image/jpeg differs from libjpeg by up to
// 100 levels on 4:2:0 files. PNG follows PIL's mode conversions: 16-bit
// gray clips to 255 (PIL opens it as mode "I"), other 16-bit images keep
// their high byte, palettes and alpha are resolved as convert("RGB")
// does (alpha dropped, not composited). GIF, BMP, TIFF and WebP are
// decoded by Go's decoders and converted the same way.
//
// EXIF orientation is ignored, as PIL's Image.open does; set
// Options.ExifOrientation to apply it (PIL's ImageOps.exif_transpose).
//
// Every reader checks the image size in the header against a pixel limit
// before allocating, and returns errors (never panics) on any input. Open
// reads regular files only, checks the magic bytes before reading more,
// and bounds the file's size (Options.MaxBytes) and a JPEG's scans
// (MaxJPEGScans, MaxJPEGPasses), so that no file makes it block, read
// without end or decode for minutes.
// Save writes an image file through a temporary name, never half-written.
package imageio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"

	"github.com/positgan/positgan/internal/regfile"
	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// DefaultMaxPixels is the pixel limit when Options.MaxPixels is 0:
// 16.7 million pixels (4096×4096), 64 MB decoded. A small file can declare
// a huge image, so the size is read from the header and checked first.
const DefaultMaxPixels = 1 << 24

// DefaultMaxBytes is the file size limit when Options.MaxBytes is 0:
// 256 MiB, twice an uncompressed 16-bit RGBA image of DefaultMaxPixels
// pixels (the largest a BMP or TIFF within the pixel limit can need), far
// more than any compressed one. Larger files are refused before they are
// read, so that a file of junk behind an image header (a sparse 1 GB
// "big.png", say) costs neither memory nor time.
const DefaultMaxBytes = 256 << 20

// headBytes is how much of a file is read before anything else: enough
// for the magic bytes of every format and for a PNG's IHDR colour type
// and bit depth (bytes 24 and 25).
const headBytes = 32

// Options change how images are read; the zero value reads as PIL's
// Image.open(...).convert("RGB") does.
type Options struct {
	// MaxPixels bounds width × height (0: DefaultMaxPixels).
	MaxPixels int64
	// MaxBytes bounds the size of the file (0: DefaultMaxBytes).
	MaxBytes int64
	// ExifOrientation turns JPEG images upright as their EXIF orientation
	// tag says, as PIL's ImageOps.exif_transpose does. Off, the stored
	// pixels are returned, as pytorch-fid sees them.
	ExifOrientation bool
}

func (o Options) maxPixels() int64 {
	if o.MaxPixels > 0 {
		return o.MaxPixels
	}
	return DefaultMaxPixels
}

func (o Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// LimitError reports an image larger than the pixel limit (or of no
// pixels).
type LimitError struct {
	Width, Height int
	Max           int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("image of %dx%d pixels: want a positive size of at most %d pixels", e.Width, e.Height, e.Max)
}

// ErrFormat reports data in no image format imageio reads.
var ErrFormat = errors.New("imageio: unknown image format (want JPEG, PNG, GIF, BMP, TIFF or WebP)")

// A FileError reports a file Open refused or could not decode. (Errors
// of the open itself are the *fs.PathError os.Open returns.)
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

// Open reads the image file path; errors name the file. Only a regular
// file is read (a named pipe or a device, /dev/zero say, is refused before
// it is read from), and no more than its size at the time it is opened.
// Its first bytes must name an image format, its size be within
// Options.MaxBytes and the image size in its header within
// Options.MaxPixels, each checked before anything more is read. The file
// is decoded as it is read, never held whole in memory.
func Open(path string, opt Options) (image.Image, error) {
	f, fi, err := regfile.Open(path) // its errors name path
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := decodeAt(f, fi.Size(), opt)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	return img, nil
}

// Decode reads an image. The result is an *image.Gray when PIL's mode for
// the file is gray (L, 1, I, LA: gray JPEG and PNG files), whose
// convert("RGB") repeats the value in the three channels, and an
// *image.NRGBA with every alpha 255 otherwise. Data whose first bytes
// name no image format is refused after reading them, and at most
// Options.MaxBytes are read.
func Decode(r io.Reader, opt Options) (image.Image, error) {
	head := make([]byte, headBytes, 4<<10)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	if Format(head) == "" {
		return nil, ErrFormat
	}
	limit := opt.maxBytes()
	data, err := readAllAfter(head, io.LimitReader(r, limit-int64(n)+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, sizeError(limit)
	}
	return decodeAt(bytes.NewReader(data), int64(len(data)), opt)
}

// readAllAfter appends what r holds to buf, as io.ReadAll does.
func readAllAfter(buf []byte, r io.Reader) ([]byte, error) {
	w := bytes.NewBuffer(buf)
	_, err := w.ReadFrom(r)
	return w.Bytes(), err
}

func sizeError(limit int64) error {
	return fmt.Errorf("imageio: file larger than %d bytes (Options.MaxBytes)", limit)
}

// Format names the format of data from its first bytes ("jpeg", "png",
// "gif", "bmp", "tiff", "webp"), or "" if it is none of them.
func Format(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\xff\xd8")):
		return "jpeg"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(data, []byte("GIF8")):
		return "gif"
	case bytes.HasPrefix(data, []byte("BM")):
		return "bmp"
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return "tiff"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// DecodeConfig returns the size of the image in data (from its header).
func DecodeConfig(data []byte) (image.Config, error) {
	return decodeConfig(bytes.NewReader(data), Format(data))
}

// decodeConfig returns the size of the image of the given format in r,
// read from its header. A WebP file's canvas (VP8X chunk) must have the
// size of its frame, which is what the decoder allocates.
func decodeConfig(r io.Reader, format string) (image.Config, error) {
	var cfg image.Config
	var err error
	switch format {
	case "jpeg":
		d := &jpegDecoder{}
		if _, err = d.decode(r, true); err == nil && d.nComp == 0 {
			err = jpegFormatError("missing SOF marker")
		}
		cfg = image.Config{ColorModel: color.RGBAModel, Width: d.width, Height: d.height}
	case "png":
		cfg, err = png.DecodeConfig(r)
	case "gif":
		cfg, err = gif.DecodeConfig(r)
	case "bmp":
		cfg, err = bmp.DecodeConfig(r)
	case "tiff":
		cfg, err = tiff.DecodeConfig(r)
	case "webp":
		cfg, err = webpConfig(r)
	default:
		return cfg, ErrFormat
	}
	return cfg, err
}

// decodeAt decodes the image of size bytes in r. The size is checked
// before anything but the head is read, and the image size from the
// header before the image is decoded.
func decodeAt(r io.ReaderAt, size int64, opt Options) (image.Image, error) {
	head := make([]byte, min(size, headBytes))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, err
	}
	format := Format(head)
	if format == "" {
		return nil, ErrFormat
	}
	if size > opt.maxBytes() {
		return nil, sizeError(opt.maxBytes())
	}
	// Each pass reads the file afresh: the header, then the image.
	section := func() *io.SectionReader { return io.NewSectionReader(r, 0, size) }
	buffered := func() io.Reader { return bufio.NewReaderSize(section(), 32<<10) }
	var cfg image.Config
	var err error
	if format == "tiff" {
		cfg, err = decodeConfig(section(), format) // read at offsets, not whole
	} else {
		cfg, err = decodeConfig(buffered(), format)
	}
	if err != nil {
		return nil, err
	}
	limit := opt.maxPixels()
	if w, h := int64(cfg.Width), int64(cfg.Height); w <= 0 || h <= 0 || w*h > limit {
		return nil, &LimitError{Width: cfg.Width, Height: cfg.Height, Max: limit}
	}
	var img image.Image
	switch format {
	case "jpeg":
		d := &jpegDecoder{maxPixels: limit}
		if img, err = d.decode(buffered(), false); err != nil {
			return nil, err
		}
		if opt.ExifOrientation {
			img = orient(img, exifOrientationFrom(buffered()))
		}
	case "png":
		var src image.Image
		if src, err = png.Decode(buffered()); err != nil {
			return nil, err
		}
		img = pngToPIL(src, head)
	case "tiff":
		// TIFF is read at offsets: a section reads only what it needs.
		img, err = decodeOther(section(), format)
	default:
		img, err = decodeOther(buffered(), format)
	}
	if err != nil {
		return nil, err
	}
	// The data must agree with the header (a GIF frame, say, can be
	// larger than its screen).
	if b := img.Bounds(); int64(b.Dx())*int64(b.Dy()) > limit {
		return nil, &LimitError{Width: b.Dx(), Height: b.Dy(), Max: limit}
	}
	return toPIL(img, false), nil
}

// decodeOther decodes GIF, BMP, TIFF and WebP with Go's decoders (the
// x/image ones are less tried on hostile data than the standard library's
// and ours, so a panic in one is turned into an error).
func decodeOther(r io.Reader, format string) (img image.Image, err error) {
	defer func() {
		if p := recover(); p != nil {
			img, err = nil, fmt.Errorf("imageio: %s decoder failed: %v", format, p)
		}
	}()
	switch format {
	case "gif":
		return gif.Decode(r)
	case "bmp":
		return bmp.Decode(r)
	case "tiff":
		return tiff.Decode(r)
	}
	return webp.Decode(r)
}

// pngToPIL converts a decoded PNG as PIL reads it: the colour type and
// bit depth come from the IHDR chunk, since Go's decoder returns the same
// types for different PIL modes (16-bit gray with a tRNS chunk and 16-bit
// gray+alpha are both NRGBA64, say).
func pngToPIL(img image.Image, data []byte) image.Image {
	if len(data) < 26 {
		return toPIL(img, false)
	}
	depth, ctype := data[24], data[25]
	// PIL opens 16-bit gray as mode "I" (32-bit integers), whose
	// conversion to L or RGB clips to 255; every other 16-bit mode is
	// unpacked to its high byte.
	return toPIL(img, ctype == 0 && depth == 16)
}

// toPIL returns img as gray or opaque RGB 8-bit pixels, as PIL's
// convert("RGB") (or "L" for gray modes) would: alpha dropped without
// compositing; 16-bit samples clipped to 255 if clip16, else their high
// byte.
func toPIL(img image.Image, clip16 bool) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	to8 := func(v uint16) uint8 {
		if clip16 {
			return uint8(min(v, 255))
		}
		return uint8(v >> 8)
	}
	gray := func(f func(x, y int) uint8) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for y := range h {
			for x := range w {
				g.Pix[y*w+x] = f(x, y)
			}
		}
		return g
	}
	rgb := func(f func(x, y int) (r, g, b uint8)) *image.NRGBA {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			p := m.Pix[y*m.Stride:]
			for x := range w {
				p[4*x], p[4*x+1], p[4*x+2] = f(x, y)
				p[4*x+3] = 255
			}
		}
		return m
	}
	isGray := func(m color.Model) bool { return m == color.GrayModel || m == color.Gray16Model }
	switch m := img.(type) {
	case *image.Gray:
		if m.Rect.Min == (image.Point{}) && m.Stride == w {
			return m
		}
		return gray(func(x, y int) uint8 { return m.GrayAt(b.Min.X+x, b.Min.Y+y).Y })
	case *image.Gray16:
		return gray(func(x, y int) uint8 { return to8(m.Gray16At(b.Min.X+x, b.Min.Y+y).Y) })
	case *image.NRGBA:
		if m.Rect.Min == (image.Point{}) && m.Stride == 4*w && allOpaque(m.Pix) {
			return m
		}
		return rgb(func(x, y int) (uint8, uint8, uint8) {
			c := m.NRGBAAt(b.Min.X+x, b.Min.Y+y)
			return c.R, c.G, c.B
		})
	case *image.NRGBA64:
		return rgb(func(x, y int) (uint8, uint8, uint8) {
			c := m.NRGBA64At(b.Min.X+x, b.Min.Y+y)
			return to8(c.R), to8(c.G), to8(c.B)
		})
	case *image.RGBA:
		return rgb(func(x, y int) (uint8, uint8, uint8) {
			c := m.RGBAAt(b.Min.X+x, b.Min.Y+y)
			if c.A != 255 { // premultiplied: undo
				n := color.NRGBAModel.Convert(c).(color.NRGBA)
				return n.R, n.G, n.B
			}
			return c.R, c.G, c.B
		})
	case *image.RGBA64:
		return rgb(func(x, y int) (uint8, uint8, uint8) {
			c := m.RGBA64At(b.Min.X+x, b.Min.Y+y)
			if c.A != 0xffff {
				n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
				return to8(n.R), to8(n.G), to8(n.B)
			}
			return to8(c.R), to8(c.G), to8(c.B)
		})
	case *image.Paletted:
		var pal [256][3]uint8
		for i, c := range m.Palette {
			if i >= 256 {
				break
			}
			switch c := c.(type) {
			case color.NRGBA:
				pal[i] = [3]uint8{c.R, c.G, c.B}
			case color.RGBA:
				pal[i] = [3]uint8{c.R, c.G, c.B}
			default:
				n := color.NRGBAModel.Convert(c).(color.NRGBA)
				pal[i] = [3]uint8{n.R, n.G, n.B}
			}
		}
		return rgb(func(x, y int) (uint8, uint8, uint8) {
			p := pal[m.ColorIndexAt(b.Min.X+x, b.Min.Y+y)]
			return p[0], p[1], p[2]
		})
	}
	if isGray(img.ColorModel()) {
		return gray(func(x, y int) uint8 {
			return color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
		})
	}
	return rgb(func(x, y int) (uint8, uint8, uint8) {
		c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
		return c.R, c.G, c.B
	})
}

func allOpaque(pix []uint8) bool {
	for i := 3; i < len(pix); i += 4 {
		if pix[i] != 255 {
			return false
		}
	}
	return true
}

// exifOrientation returns the EXIF orientation (1 to 8) of a JPEG file,
// or 1 if it has none.
func exifOrientation(data []byte) int { return exifOrientationFrom(bytes.NewReader(data)) }

// exifOrientationFrom is exifOrientation reading the file from r: only
// the segments before the first scan, an APP1 segment (at most 64 KB)
// held in memory at a time.
func exifOrientationFrom(r io.Reader) int {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:2]); err != nil {
		return 1
	}
	seg := make([]byte, 0, 1<<16)
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil || hdr[0] != 0xff {
			return 1
		}
		marker := hdr[1]
		if marker == 0xda || marker == 0xd9 { // SOS, EOI: no more headers
			return 1
		}
		n := int(binary.BigEndian.Uint16(hdr[2:]))
		if n < 2 { // the length counts its own two bytes: a corrupt header
			return 1
		}
		if marker != 0xe1 {
			if _, err := io.CopyN(io.Discard, r, int64(n-2)); err != nil {
				return 1
			}
			continue
		}
		// A segment cut short by the end of the file is looked at too.
		k, err := io.ReadFull(r, seg[:n-2])
		seg := seg[:k]
		if len(seg) > 14 && string(seg[:6]) == "Exif\x00\x00" {
			return tiffOrientation(seg[6:])
		}
		if err != nil {
			return 1
		}
	}
}

// tiffOrientation reads tag 0x0112 of IFD0 of an EXIF TIFF structure.
func tiffOrientation(t []byte) int {
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 1
	}
	off := int(bo.Uint32(t[4:]))
	if off < 8 || off+2 > len(t) {
		return 1
	}
	n := int(bo.Uint16(t[off:]))
	for k := range n {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			break
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			if v := int(bo.Uint16(t[e+8:])); v >= 1 && v <= 8 {
				return v
			}
			return 1
		}
	}
	return 1
}

// orient applies EXIF orientation o as exif_transpose does.
func orient(img image.Image, o int) image.Image {
	if o <= 1 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	ow, oh := w, h
	if o >= 5 {
		ow, oh = h, w
	}
	// src maps an output pixel to its source pixel.
	src := func(x, y int) (int, int) {
		switch o {
		case 2:
			return w - 1 - x, y
		case 3:
			return w - 1 - x, h - 1 - y
		case 4:
			return x, h - 1 - y
		case 5: // transpose
			return y, x
		case 6: // rotate 90° clockwise
			return y, h - 1 - x
		case 7: // transverse
			return w - 1 - y, h - 1 - x
		default: // 8: rotate 90° counter-clockwise
			return w - 1 - y, x
		}
	}
	switch m := img.(type) {
	case *image.Gray:
		out := image.NewGray(image.Rect(0, 0, ow, oh))
		for y := range oh {
			for x := range ow {
				sx, sy := src(x, y)
				out.Pix[y*ow+x] = m.Pix[sy*m.Stride+sx]
			}
		}
		return out
	case *image.NRGBA:
		out := image.NewNRGBA(image.Rect(0, 0, ow, oh))
		for y := range oh {
			for x := range ow {
				sx, sy := src(x, y)
				copy(out.Pix[y*out.Stride+4*x:y*out.Stride+4*x+4], m.Pix[sy*m.Stride+4*sx:])
			}
		}
		return out
	}
	return img
}
