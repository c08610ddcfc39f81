package featnet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The pickle reader below understands the subset of Python's pickle
// format that torch.save writes for a state_dict, and nothing more. It
// runs no code: a pickle names Python callables (GLOBAL, STACK_GLOBAL)
// and asks for them to be called (REDUCE), and only the few torch
// rebuild functions a state_dict needs are recognised, as data; any
// other name is refused. It works on the pickle's bytes in memory, so
// every length a pickle claims is compared with what remains of it
// before anything is allocated, and what it can build is bounded by
// the limits below (documented in docs/reliability.md).
const (
	// pickleMaxOps bounds the opcodes one pickle may execute. Every
	// opcode adds at most one value (or moves values already counted),
	// so this bounds the values and the containers a pickle can build.
	// pytorch-fid's Inception state_dict executes about 25,000.
	pickleMaxOps = 1 << 20
	// pickleMaxStack and pickleMaxMemo bound the stack and the memo;
	// a state_dict's stack holds at most one SETITEMS batch (1000
	// pairs), its memo about 8 entries a tensor.
	pickleMaxStack = 1 << 16
	pickleMaxMemo  = 1 << 16
	// pickleMaxDepth bounds the MARKs open at once (the nesting of
	// tuples, lists and dicts built from marks); a state_dict needs 3.
	// Values nested without marks (TUPLE1 of TUPLE1 ...) are never
	// walked recursively, so their depth needs no bound.
	pickleMaxDepth = 256
)

// Values the pickle reader builds: None is nil, bools are bool, ints
// int64 (longer LONG1/LONG4 values are pyLong), floats float64, str
// string and bytes pyBytes.
type (
	pyTuple []any
	pyList  struct{ items []any }
	pyBytes []byte
	// pyLong holds the little-endian two's-complement bytes of an
	// integer too large for int64 (the legacy format's magic number).
	pyLong string
	// pyDict is a dict or collections.OrderedDict, in insertion order.
	pyDict struct {
		keys, vals []any
		index      map[any]int
	}
	// pyGlobal is a Python callable or class the pickle named, as
	// "module.name"; it is only ever compared, never called.
	pyGlobal string
)

func newPyDict() *pyDict { return &pyDict{index: map[any]int{}} }

// set sets d[k] = v; keys must be of a hashable scalar type.
func (d *pyDict) set(k, v any) error {
	switch k.(type) {
	case nil, bool, int64, float64, string, pyLong:
	default:
		return fmt.Errorf("a dict key of type %s", pyType(k))
	}
	if i, ok := d.index[k]; ok {
		d.vals[i] = v
		return nil
	}
	d.index[k] = len(d.keys)
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	return nil
}

// get returns d[k].
func (d *pyDict) get(k any) (any, bool) {
	i, ok := d.index[k]
	if !ok {
		return nil, false
	}
	return d.vals[i], true
}

// pyType names the type of a value the reader built, for errors: values
// are never printed whole, since a pickle's values may be large or
// nested without bound.
func pyType(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64, pyLong:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case pyBytes:
		return "bytes"
	case pyTuple:
		return fmt.Sprintf("tuple of %d", len(v))
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case pyGlobal:
		return string(v)
	case *pthStorage:
		return "storage"
	case *pthTensor:
		return "tensor"
	}
	return fmt.Sprintf("%T", v)
}

// errPickleTruncated reports a pickle that ends mid-opcode or claims
// more bytes than it holds.
var errPickleTruncated = errors.New("pickle truncated")

// unpickler runs one pickle held in buf from pos.
type unpickler struct {
	buf   []byte
	pos   int
	stack []any
	marks []int
	memo  map[uint32]any
	// global resolves a GLOBAL or STACK_GLOBAL: the value to push for
	// module.name, or an error refusing it.
	global func(module, name string) (any, error)
	// reduce calls a resolved global with args (REDUCE).
	reduce func(f pyGlobal, args pyTuple) (any, error)
	// persistent resolves a persistent id (BINPERSID); nil refuses them.
	persistent func(pid any) (any, error)
}

// take returns the next n bytes, or errPickleTruncated if fewer remain.
// n comes from the pickle, so it is compared with what remains before
// it is used.
func (u *unpickler) take(n uint64) ([]byte, error) {
	if n > uint64(len(u.buf)-u.pos) {
		return nil, fmt.Errorf("%w: %d bytes claimed at byte %d, %d remain", errPickleTruncated, n, u.pos, len(u.buf)-u.pos)
	}
	b := u.buf[u.pos : u.pos+int(n)]
	u.pos += int(n)
	return b, nil
}

// uint reads an n-byte little-endian unsigned integer (n ≤ 8).
func (u *unpickler) uint(n int) (uint64, error) {
	b, err := u.take(uint64(n))
	if err != nil {
		return 0, err
	}
	var x uint64
	for i := n - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	return x, nil
}

// line reads up to and including the next newline (GLOBAL's arguments).
func (u *unpickler) line() (string, error) {
	rest := u.buf[u.pos:]
	i := bytes.IndexByte(rest[:min(len(rest), 1024)], '\n')
	if i < 0 {
		return "", fmt.Errorf("a GLOBAL name at byte %d is unterminated or longer than 1024 bytes", u.pos)
	}
	u.pos += i + 1
	return string(rest[:i]), nil
}

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

// bounded checks the stack and memo against their limits after an
// opcode.
func (u *unpickler) bounded() error {
	if len(u.stack) > pickleMaxStack {
		return fmt.Errorf("the pickle's stack holds more than %d values", pickleMaxStack)
	}
	if len(u.memo) > pickleMaxMemo {
		return fmt.Errorf("the pickle's memo holds more than %d values", pickleMaxMemo)
	}
	return nil
}

func (u *unpickler) pop() (any, error) {
	base := 0
	if len(u.marks) > 0 {
		base = u.marks[len(u.marks)-1]
	}
	if len(u.stack) <= base {
		return nil, fmt.Errorf("stack underflow at byte %d", u.pos)
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

// popMark pops the values above the topmost mark and the mark.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, fmt.Errorf("no MARK before byte %d", u.pos)
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

// top returns the value on top of the stack, above the topmost mark.
func (u *unpickler) top() (any, error) {
	v, err := u.pop()
	if err != nil {
		return nil, err
	}
	u.push(v)
	return v, nil
}

// load runs the pickle from u.pos to its STOP and returns its value;
// u.pos is then just past the STOP.
func (u *unpickler) load() (any, error) {
	u.memo = map[uint32]any{}
	u.stack, u.marks = u.stack[:0], u.marks[:0]
	for ops := 0; ; ops++ {
		if ops >= pickleMaxOps {
			return nil, fmt.Errorf("pickle runs more than %d opcodes", pickleMaxOps)
		}
		at := u.pos
		if at >= len(u.buf) {
			return nil, fmt.Errorf("%w: no STOP", errPickleTruncated)
		}
		op := u.buf[at]
		u.pos++
		v, err := u.step(op)
		if err == nil {
			err = u.bounded()
		}
		if err != nil {
			return nil, fmt.Errorf("pickle opcode 0x%02x at byte %d: %w", op, at, err)
		}
		if op == '.' {
			return v, nil
		}
	}
}

// step runs one opcode; for STOP it returns the pickle's value.
func (u *unpickler) step(op byte) (any, error) {
	switch op {
	case 0x80: // PROTO
		p, err := u.uint(1)
		if err != nil {
			return nil, err
		}
		if p > 5 {
			return nil, fmt.Errorf("pickle protocol %d", p)
		}
	case 0x95: // FRAME: a length hint, which must not exceed the pickle
		n, err := u.uint(8)
		if err != nil {
			return nil, err
		}
		if n > uint64(len(u.buf)-u.pos) {
			return nil, fmt.Errorf("%w: a frame of %d bytes, %d remain", errPickleTruncated, n, len(u.buf)-u.pos)
		}
	case '.': // STOP
		v, err := u.pop()
		if err != nil {
			return nil, err
		}
		return v, nil
	case '(': // MARK
		if len(u.marks) >= pickleMaxDepth {
			return nil, fmt.Errorf("more than %d MARKs open (nesting too deep)", pickleMaxDepth)
		}
		u.marks = append(u.marks, len(u.stack))
	case '0': // POP
		if _, err := u.pop(); err != nil {
			return nil, err
		}
	case '1': // POP_MARK
		if _, err := u.popMark(); err != nil {
			return nil, err
		}
	case '2': // DUP
		v, err := u.top()
		if err != nil {
			return nil, err
		}
		u.push(v)
	case 'N':
		u.push(nil)
	case 0x88:
		u.push(true)
	case 0x89:
		u.push(false)
	case 'J': // BININT
		x, err := u.uint(4)
		if err != nil {
			return nil, err
		}
		u.push(int64(int32(uint32(x))))
	case 'K': // BININT1
		x, err := u.uint(1)
		if err != nil {
			return nil, err
		}
		u.push(int64(x))
	case 'M': // BININT2
		x, err := u.uint(2)
		if err != nil {
			return nil, err
		}
		u.push(int64(x))
	case 0x8a, 0x8b: // LONG1, LONG4
		n, err := u.uint(lenBytes(op))
		if err != nil {
			return nil, err
		}
		b, err := u.take(n)
		if err != nil {
			return nil, err
		}
		if n > 8 {
			u.push(pyLong(b))
			break
		}
		var x uint64
		for i := len(b) - 1; i >= 0; i-- {
			x = x<<8 | uint64(b[i])
		}
		if n > 0 && n < 8 && b[n-1]&0x80 != 0 { // sign-extend
			x |= ^uint64(0) << (8 * n)
		}
		u.push(int64(x))
	case 'G': // BINFLOAT, big-endian
		b, err := u.take(8)
		if err != nil {
			return nil, err
		}
		u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 'X', 0x8c, 0x8d, 'T', 'U': // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8, BINSTRING, SHORT_BINSTRING
		b, err := u.counted(lenBytes(op))
		if err != nil {
			return nil, err
		}
		u.push(string(b))
	case 'B', 'C', 0x8e, 0x96: // BINBYTES, SHORT_BINBYTES, BINBYTES8, BYTEARRAY8
		b, err := u.counted(lenBytes(op))
		if err != nil {
			return nil, err
		}
		u.push(pyBytes(b))
	case ')':
		u.push(pyTuple{})
	case 't': // TUPLE
		items, err := u.popMark()
		if err != nil {
			return nil, err
		}
		u.push(pyTuple(items))
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		n := int(op-0x85) + 1
		t := make(pyTuple, n)
		for i := n - 1; i >= 0; i-- {
			v, err := u.pop()
			if err != nil {
				return nil, err
			}
			t[i] = v
		}
		u.push(t)
	case ']':
		u.push(&pyList{})
	case 'l': // LIST
		items, err := u.popMark()
		if err != nil {
			return nil, err
		}
		u.push(&pyList{items: items})
	case 'a', 'e': // APPEND, APPENDS
		var items []any
		if op == 'a' {
			v, err := u.pop()
			if err != nil {
				return nil, err
			}
			items = []any{v}
		} else {
			var err error
			if items, err = u.popMark(); err != nil {
				return nil, err
			}
		}
		v, err := u.top()
		if err != nil {
			return nil, err
		}
		l, ok := v.(*pyList)
		if !ok {
			return nil, fmt.Errorf("appending to a %s", pyType(v))
		}
		l.items = append(l.items, items...)
	case '}':
		u.push(newPyDict())
	case 'd', 's', 'u': // DICT, SETITEM, SETITEMS
		var items []any
		if op == 's' {
			v, err := u.pop()
			if err != nil {
				return nil, err
			}
			k, err := u.pop()
			if err != nil {
				return nil, err
			}
			items = []any{k, v}
		} else {
			var err error
			if items, err = u.popMark(); err != nil {
				return nil, err
			}
		}
		if len(items)%2 != 0 {
			return nil, fmt.Errorf("%d values for a dict's keys and values", len(items))
		}
		var d *pyDict
		if op == 'd' {
			d = newPyDict()
			u.push(d)
		} else {
			v, err := u.top()
			if err != nil {
				return nil, err
			}
			var ok bool
			if d, ok = v.(*pyDict); !ok {
				return nil, fmt.Errorf("setting an item of a %s", pyType(v))
			}
		}
		for i := 0; i < len(items); i += 2 {
			if err := d.set(items[i], items[i+1]); err != nil {
				return nil, err
			}
		}
	case 'q', 'r', 0x94: // BINPUT, LONG_BINPUT, MEMOIZE
		var k uint64
		switch op {
		case 'q':
			x, err := u.uint(1)
			if err != nil {
				return nil, err
			}
			k = x
		case 'r':
			x, err := u.uint(4)
			if err != nil {
				return nil, err
			}
			k = x
		default:
			k = uint64(len(u.memo))
		}
		v, err := u.top()
		if err != nil {
			return nil, err
		}
		u.memo[uint32(k)] = v
	case 'h', 'j': // BINGET, LONG_BINGET
		x, err := u.uint(lenBytes(op))
		if err != nil {
			return nil, err
		}
		v, ok := u.memo[uint32(x)]
		if !ok {
			return nil, fmt.Errorf("memo entry %d was never stored", x)
		}
		u.push(v)
	case 'c': // GLOBAL
		module, err := u.line()
		if err != nil {
			return nil, err
		}
		name, err := u.line()
		if err != nil {
			return nil, err
		}
		g, err := u.global(module, name)
		if err != nil {
			return nil, err
		}
		u.push(g)
	case 0x93: // STACK_GLOBAL
		n, err := u.pop()
		if err != nil {
			return nil, err
		}
		m, err := u.pop()
		if err != nil {
			return nil, err
		}
		module, ok1 := m.(string)
		name, ok2 := n.(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("STACK_GLOBAL of a %s and a %s", pyType(m), pyType(n))
		}
		g, err := u.global(module, name)
		if err != nil {
			return nil, err
		}
		u.push(g)
	case 'R': // REDUCE
		a, err := u.pop()
		if err != nil {
			return nil, err
		}
		f, err := u.pop()
		if err != nil {
			return nil, err
		}
		g, ok := f.(pyGlobal)
		if !ok {
			return nil, fmt.Errorf("calling a %s", pyType(f))
		}
		args, ok := a.(pyTuple)
		if !ok {
			return nil, fmt.Errorf("calling %s with a %s, not a tuple", g, pyType(a))
		}
		v, err := u.reduce(g, args)
		if err != nil {
			return nil, err
		}
		u.push(v)
	case 'b': // BUILD: sets an object's state. Only a state_dict's
		// _metadata (on its OrderedDict) is expected; it is dropped.
		if _, err := u.pop(); err != nil {
			return nil, err
		}
		v, err := u.top()
		if err != nil {
			return nil, err
		}
		if _, ok := v.(*pyDict); !ok {
			return nil, fmt.Errorf("setting the state of a %s", pyType(v))
		}
	case 'Q': // BINPERSID
		pid, err := u.pop()
		if err != nil {
			return nil, err
		}
		if u.persistent == nil {
			return nil, errors.New("a persistent id where none is expected")
		}
		v, err := u.persistent(pid)
		if err != nil {
			return nil, err
		}
		u.push(v)
	case 0x81, 0x92, 'i', 'o', 0x82, 0x83, 0x84:
		// NEWOBJ, NEWOBJ_EX, INST, OBJ, EXT1, EXT2, EXT4
		return nil, errors.New("the pickle asks to construct an object, which a state_dict never needs (refused: positgan runs no code from .pth files)")
	default:
		return nil, errors.New("an opcode a torch.save state_dict does not use")
	}
	return nil, nil
}

// counted reads an n-byte length, then that many bytes, checking the
// length against what remains of the pickle before using it.
func (u *unpickler) counted(n int) ([]byte, error) {
	l, err := u.uint(n)
	if err != nil {
		return nil, err
	}
	return u.take(l)
}

// lenBytes returns the size of the length (or index) argument of the
// opcodes that have one.
func lenBytes(op byte) int {
	switch op {
	case 0x8a, 0x8c, 'U', 'C', 'h':
		return 1
	case 0x8d, 0x8e, 0x96:
		return 8
	}
	return 4 // LONG4, BINUNICODE, BINSTRING, BINBYTES, LONG_BINGET
}
