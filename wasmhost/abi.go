package wasmhost

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/corvidlabs/fledge-go/protocol"
	"github.com/corvidlabs/fledge-go/termsafe"
)

// instantiateHost links the fledge module. Every function is always there:
// whether the plugin may exec, store or read metadata is fledge's engine's
// decision, made per request, as for a native plugin.
func (i *Instance) instantiateHost(ctx context.Context) error {
	b := i.rt.NewHostModuleBuilder(ModuleFledge)
	funcs := map[string]api.GoModuleFunc{
		"send": i.send, "recv": i.recv, "exit": i.exit,
		"exec": i.exec, "store_set": i.storeSet, "store_get": i.storeGet, "metadata": i.metadata,
	}
	for name, fn := range funcs {
		sig := hostFuncs[name]
		b.NewFunctionBuilder().WithGoModuleFunction(fn, sig[0], sig[1]).Export(name)
	}
	_, err := b.Instantiate(ctx)
	return err
}

// guest reads the plugin's buffer, ending the run when it lies outside its
// memory. The slice is the plugin's memory itself: copy what must outlive
// the call.
func guest(mod api.Module, fn string, ptr, n uint32) []byte {
	b, ok := mod.Memory().Read(ptr, n)
	if !ok {
		panic(&Failure{Kind: FailTrap, Msg: fmt.Sprintf("it passed fledge.%s a buffer outside its memory (offset %d, length %d; its memory is %d bytes)", fn, ptr, n, mod.Memory().Size())})
	}
	return b
}

// arg reads a call's argument: within the plugin's memory, and no longer
// than a protocol message may be (what fledge holds stays bounded).
func (i *Instance) arg(mod api.Module, fn string, stack []uint64) []byte {
	ptr, n := uint32(stack[0]), uint32(stack[1])
	if int64(n) > int64(i.lim.Line) {
		panic(&Failure{Kind: FailProtocol, Msg: fmt.Sprintf("it passed fledge.%s %d bytes; a protocol message may be at most %d bytes", fn, n, i.lim.Line)})
	}
	return guest(mod, fn, ptr, n)
}

// send(ptr, len): one outbound message.
func (i *Instance) send(_ context.Context, mod api.Module, stack []uint64) {
	msg := oneLine(i.arg(mod, "send", stack))
	if len(bytes.TrimSpace(msg)) == 0 {
		return
	}
	if needsAnswer(msg) {
		i.owed++
	}
	i.emit(msg)
}

// emit queues a message; a plugin whose stream fledge closed is stopped.
func (i *Instance) emit(msg []byte) {
	msg = oneLine(msg)
	if err := i.out.line(msg, i.meter); err != nil {
		panic(sys.NewExitError(sys.ExitCodeContextCanceled))
	}
}

// oneLine makes a message fit on one line: pretty-printed JSON is
// compacted, and any other line break becomes a space (the engine will
// then reject the line as it would a native plugin's).
func oneLine(msg []byte) []byte {
	if bytes.IndexByte(msg, '\n') < 0 && bytes.IndexByte(msg, '\r') < 0 {
		return msg
	}
	var b bytes.Buffer
	if json.Compact(&b, msg) == nil {
		return b.Bytes()
	}
	out := append([]byte(nil), msg...)
	for j, c := range out {
		if c == '\n' || c == '\r' {
			out[j] = ' '
		}
	}
	return out
}

// needsAnswer reports whether fledge's engine will answer msg: a request
// with a string or numeric id (it gets a response, or a cancel when it is
// malformed). Output, log and progress, by far the most frequent, are
// recognised without decoding.
func needsAnswer(msg []byte) bool {
	for _, t := range [...]string{protocol.TypeOutput, protocol.TypeLog, protocol.TypeProgress, protocol.TypeStore} {
		if bytes.HasPrefix(msg, []byte(`{"type":"`+t+`"`)) {
			return false
		}
	}
	m := parseMessage(msg)
	if !protocol.IsRequest(m.typ) || m.id == "" {
		return false
	}
	c := m.id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// recv(ptr, max_len) -> len: the next inbound message, or its next part.
func (i *Instance) recv(_ context.Context, mod api.Module, stack []uint64) {
	ptr, max := uint32(stack[0]), uint32(stack[1])
	if int32(max) < 0 {
		panic(&Failure{Kind: FailTrap, Msg: fmt.Sprintf("it passed fledge.recv a negative length (%d)", int32(max))})
	}
	if len(i.cur) == 0 {
		block := i.owed > 0
		m, ok := i.take(nil, block)
		if !ok {
			stack[0] = 0
			if i.in.closed() {
				stack[0] = uint64(uint32(0xffffffff)) // -1: fledge hung up
			}
			return
		}
		if m.answers() && i.owed > 0 {
			i.owed--
		}
		i.cur = m.data
	}
	n := min(uint32(len(i.cur)), max)
	if n > 0 && !mod.Memory().Write(ptr, i.cur[:n]) {
		panic(&Failure{Kind: FailTrap, Msg: fmt.Sprintf("it passed fledge.recv a buffer outside its memory (offset %d, length %d; its memory is %d bytes)", ptr, n, mod.Memory().Size())})
	}
	i.cur = i.cur[n:]
	stack[0] = uint64(n)
}

// take is inbox.take for the plugin's goroutine: pending output is written
// first, and a blocking wait does not count as compute time.
func (i *Instance) take(match func(*message) bool, block bool) (message, bool) {
	if m, ok := i.in.take(match, false, nil); ok || !block {
		return m, ok
	}
	_ = i.out.flush(i.meter)
	defer i.meter.wait()()
	return i.in.take(match, true, i.ctx.Done())
}

// exit(code) ends the plugin.
func (i *Instance) exit(ctx context.Context, mod api.Module, stack []uint64) {
	code := uint32(stack[0])
	_ = mod.CloseWithExitCode(ctx, code)
	panic(sys.NewExitError(code))
}

// call sends a request with a host-chosen id and waits for its answer.
// The response's value is what the next recv delivers, and its length is
// returned; a cancelled request returns -1 and delivers nothing.
func (i *Instance) call(typ string, fields ...[2]string) int32 {
	i.seq++
	id := strconv.Quote(i.nonce + strconv.Itoa(i.seq))
	var b bytes.Buffer
	b.WriteString(`{"type":"` + typ + `","id":` + id)
	for _, f := range fields {
		if f[1] != "" {
			b.WriteString(`,"` + f[0] + `":` + f[1])
		}
	}
	b.WriteByte('}')
	i.emit(b.Bytes())
	m, ok := i.take(func(m *message) bool { return m.id == id }, true)
	if !ok || m.typ != protocol.TypeResponse {
		return -1
	}
	var r struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(m.data, &r) != nil {
		return -1
	}
	v := bytes.TrimSpace(r.Value)
	if len(v) == 0 {
		v = []byte("null")
	}
	i.cur = v
	return int32(len(v))
}

// warn tells the user, through the plugin's own log, about a call fledge
// could not make sense of.
func (i *Instance) warn(format string, a ...any) {
	msg, _ := json.Marshal(fmt.Sprintf("fledge: "+format, a...))
	i.emit([]byte(`{"type":"log","level":"warn","message":` + string(msg) + `}`))
}

// object decodes a call's JSON object argument into fields, reporting a
// malformed one.
func (i *Instance) object(fn string, arg []byte, v any) bool {
	if err := json.Unmarshal(arg, v); err != nil {
		i.warn("%s: the request is not a JSON object (%v); ignored", fn, termsafe.Truncate(err.Error(), 100))
		return false
	}
	return true
}

// exec(ptr, len) -> len: {"command","cwd","timeout"}.
func (i *Instance) exec(_ context.Context, mod api.Module, stack []uint64) {
	var req struct {
		Command, Cwd, Timeout json.RawMessage
	}
	arg := i.arg(mod, "exec", stack)
	if !i.object("exec", arg, &req) {
		stack[0] = uint64(uint32(0xffffffff))
		return
	}
	r := i.call(protocol.TypeExec, [2]string{"command", string(req.Command)}, [2]string{"cwd", string(req.Cwd)}, [2]string{"timeout", string(req.Timeout)})
	stack[0] = uint64(uint32(r))
}

// store_set(ptr, len): {"key","value"}; a missing field is "", as in the
// Rust fledge.
func (i *Instance) storeSet(_ context.Context, mod api.Module, stack []uint64) {
	var req struct {
		Key, Value json.RawMessage
	}
	arg := i.arg(mod, "store_set", stack)
	if !i.object("store_set", arg, &req) {
		return
	}
	orEmpty := func(r json.RawMessage) string {
		if len(r) == 0 {
			return `""`
		}
		return string(r)
	}
	i.emit([]byte(`{"type":"store","key":` + orEmpty(req.Key) + `,"value":` + orEmpty(req.Value) + `}`))
}

// store_get(ptr, len) -> len: the key's bytes; the value (a JSON string or
// null) is read with recv.
func (i *Instance) storeGet(_ context.Context, mod api.Module, stack []uint64) {
	key := i.arg(mod, "store_get", stack)
	if !utf8.Valid(key) {
		i.warn("store_get: the key is not UTF-8; ignored")
		stack[0] = uint64(uint32(0xffffffff))
		return
	}
	k, _ := json.Marshal(string(key))
	stack[0] = uint64(uint32(i.call(protocol.TypeLoad, [2]string{"key", string(k)})))
}

// metadata(ptr, len) -> len: a JSON array of keys, or {"keys": [...]}.
func (i *Instance) metadata(_ context.Context, mod api.Module, stack []uint64) {
	arg := bytes.TrimSpace(i.arg(mod, "metadata", stack))
	keys := json.RawMessage(arg)
	if len(arg) == 0 || arg[0] != '[' {
		var req struct{ Keys json.RawMessage }
		if !i.object("metadata", arg, &req) {
			stack[0] = uint64(uint32(0xffffffff))
			return
		}
		keys = req.Keys
	} else if !json.Valid(arg) {
		i.warn("metadata: the keys are not valid JSON; ignored")
		stack[0] = uint64(uint32(0xffffffff))
		return
	}
	stack[0] = uint64(uint32(i.call(protocol.TypeMetadata, [2]string{"keys", string(keys)})))
}
