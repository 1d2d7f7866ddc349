package routes

import (
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net/http"

	"launchdir/ops"
)

// isMultipart reports a multipart/form-data request.
func isMultipart(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "multipart/form-data"
}

// readMultipart turns a multipart/form-data upload into the operation's
// arguments: the part named "file" fills op.Upload (as base64, so REST and
// MCP reach the same validated input), other parts fill the string body
// properties of the same name. The parts are streamed under the body cap.
func (s *Server) readMultipart(op *ops.Operation, r *http.Request) (map[string]any, error) {
	limit := s.bodyLimit(op)
	r.Body = http.MaxBytesReader(nil, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, ops.Invalid("body", "is not valid multipart/form-data: %v", err)
	}
	out := map[string]any{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, multipartErr(err, limit)
		}
		b, err := io.ReadAll(part)
		if err != nil {
			return nil, multipartErr(err, limit)
		}
		name := part.FormName()
		switch {
		case name == "file":
			out[op.Upload] = base64.StdEncoding.EncodeToString(b)
		case op.Body.Prop(name) != nil && op.Body.Prop(name).Schema.Type == "string" && name != op.Upload:
			out[name] = string(b)
		default:
			return nil, ops.Invalid(name, "unknown form field (send the image as the part named file)")
		}
	}
	return out, nil
}

func multipartErr(err error, limit int64) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(limit)
	}
	return ops.Invalid("body", "is not valid multipart/form-data: %v", err)
}
