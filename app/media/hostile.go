package media

import (
	"bytes"
	"encoding/binary"
)

// looksLikeSVG reports an SVG, XML or HTML document, however it is named or
// typed. SVG is refused outright rather than sanitised: a safe subset is a
// parser we would have to keep right forever, and rasterising needs a
// renderer we do not ship.
func looksLikeSVG(data []byte) bool {
	head := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(head) > 0 && head[0] == '<' {
		return true
	}
	n := min(len(data), 1024)
	return bytes.Contains(bytes.ToLower(data[:n]), []byte("<svg"))
}

// markup a browser would act on if the file were ever served as HTML.
var markup = [][]byte{[]byte("<script"), []byte("<html"), []byte("<svg"), []byte("<iframe"), []byte("<?php"),
	[]byte("javascript:"), []byte("<body"), []byte("onload=")}

// polyglot names why a file that decodes as an image is also something
// else: markup anywhere in it, or bytes after the PNG's last chunk or the
// JPEG's end marker (where zip archives and scripts are appended). We
// re-encode every image anyway, so nothing of such a file would be served;
// refusing it tells the uploader plainly instead of silently dropping data.
func polyglot(data []byte) string {
	lower := bytes.ToLower(data)
	for _, m := range markup {
		if bytes.Contains(lower, m) {
			return "it contains markup (" + string(m) + ") besides the image"
		}
	}
	if tail := trailingBytes(data); tail > 0 {
		return "it carries data after the end of the image"
	}
	return ""
}

// trailingBytes counts bytes after a PNG's IEND chunk or a JPEG's final
// EOI marker (0 for other formats, and for a few bytes of padding).
func trailingBytes(data []byte) int {
	const slack = 16 // some encoders pad; a payload is longer
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		end := pngEnd(data)
		if end > 0 && len(data)-end > slack {
			return len(data) - end
		}
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8}):
		i := bytes.LastIndex(data, []byte{0xFF, 0xD9})
		if i > 0 && len(data)-(i+2) > slack {
			return len(data) - (i + 2)
		}
	}
	return 0
}

// pngEnd walks the chunks to the end of IEND; 0 when the file is cut short.
func pngEnd(data []byte) int {
	off := 8
	for off+12 <= len(data) {
		n := int(binary.BigEndian.Uint32(data[off:]))
		typ := string(data[off+4 : off+8])
		next := off + 12 + n
		if n < 0 || next > len(data) || next < off {
			return 0
		}
		if typ == "IEND" {
			return next
		}
		off = next
	}
	return 0
}
