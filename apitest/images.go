package apitest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
)

// Test images for the media limits and hostile files (issue 21).

// PNG is a w×h PNG with a gradient (so scaling has something to do).
func PNG(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / max(1, w)), uint8(y * 255 / max(1, h)), 160, 255})
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}

// GrayPNG is a uniform w×h greyscale PNG: tiny on disk however large.
func GrayPNG(w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	var buf bytes.Buffer
	(&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img)
	return buf.Bytes()
}

// JPEG is a w×h JPEG.
func JPEG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	var buf bytes.Buffer
	jpeg.Encode(&buf, img, nil)
	return buf.Bytes()
}

// PaddedPNG is a valid PNG of exactly size bytes: a small image with a
// private ancillary chunk of zeros before IEND (decoders skip it).
func PaddedPNG(size int) []byte {
	base := PNG(32, 32)
	iend := len(base) - 12
	pad := size - len(base) - 12
	if pad < 0 {
		panic("PaddedPNG: size too small")
	}
	return append(append(append([]byte{}, base[:iend]...), Chunk("prVt", make([]byte, pad))...), base[iend:]...)
}

// Chunk is one PNG chunk with its CRC.
func Chunk(typ string, data []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// BombPNG declares a w×h canvas in its header but carries almost no data:
// a decoder that trusted the header would allocate w×h×4 bytes.
func BombPNG(w, h int) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA
	out := []byte("\x89PNG\r\n\x1a\n")
	out = append(out, Chunk("IHDR", ihdr)...)
	out = append(out, Chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(out, Chunk("IEND", nil)...)
}
