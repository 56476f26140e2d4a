package dev.sharray;

/** Element types of a shared array: little-endian, fixed size, with their NumPy type strings. */
public enum DType {
    /** signed 8-bit integer */
    INT8(1, "|i1", false),
    /** unsigned 8-bit integer */
    UINT8(1, "|u1", false),
    /** signed 16-bit integer */
    INT16(2, "<i2", false),
    /** signed 32-bit integer */
    INT32(4, "<i4", false),
    /** signed 64-bit integer */
    INT64(8, "<i8", false),
    /** IEEE 754 single precision */
    FLOAT32(4, "<f4", true),
    /** IEEE 754 double precision */
    FLOAT64(8, "<f8", true);

    private static final DType[] VALUES = values();

    private final int byteSize;
    private final String numpyDescr;
    private final boolean floating;

    DType(int byteSize, String numpyDescr, boolean floating) {
        this.byteSize = byteSize;
        this.numpyDescr = numpyDescr;
        this.floating = floating;
    }

    /** @return bytes per element */
    public int byteSize() {
        return byteSize;
    }

    /** @return the NumPy array-protocol type string, e.g. {@code "<f8"} */
    public String numpyDescr() {
        return numpyDescr;
    }

    /** @return true for FLOAT32 and FLOAT64 */
    public boolean isFloating() {
        return floating;
    }

    /**
     * Finds the dtype for a NumPy type string; {@code '<'}, {@code '|'} and {@code '='} are accepted for
     * single-byte types and little-endian types alike, and so is a string without a byte-order character
     * ({@code "f8"}), which NumPy reads in native order.
     *
     * @param descr NumPy type string such as {@code "<f8"}
     * @return the dtype
     * @throws InvalidDescriptorException for big-endian or unsupported types
     */
    public static DType fromNumpyDescr(String descr) {
        if (descr == null || descr.length() < 2) {
            throw new InvalidDescriptorException("descr", "unsupported NumPy dtype '" + descr + "'");
        }
        // a type string without a byte-order character (hand-written: np.save always writes one) is in native order,
        // as NumPy reads it; sharray runs only on little-endian machines
        final boolean ordered = "<>|=".indexOf(descr.charAt(0)) >= 0;
        char order = ordered ? descr.charAt(0) : '=';
        String kind = ordered ? descr.substring(1) : descr;
        final DType t = ofKind(kind);
        if (order == '>' && !kind.endsWith("1")) {
            final String into = LOSSLESS_INTO.getOrDefault(kind, t != null ? "<" + kind : null);
            throw new InvalidDescriptorException("descr", "big-endian dtype '" + descr + "' is not supported; sharray"
                + " arrays are little-endian" + (into == null ? "" : ": convert it in NumPy, e.g. np.save(path,"
                + " a.astype('" + into + "'))"));
        }
        if (t != null) {
            return t;
        }
        final String into = LOSSLESS_INTO.get(kind);
        throw new InvalidDescriptorException("descr", "unsupported NumPy dtype '" + descr
            + "' (supported: i1, u1, i2, i4, i8, f4, f8)" + (into == null ? ""
            : ": convert it in NumPy, e.g. np.save(path, a.astype('" + into + "'))"));
    }

    /** @return the dtype of a NumPy type string without its byte order ("f8"), or null when sharray has none */
    private static DType ofKind(String kind) {
        for (DType t : VALUES) {
            if (t.numpyDescr.substring(1).equals(kind)) {
                return t;
            }
        }
        return null;
    }

    /**
     * NumPy types sharray lacks, and the supported one that holds each of their values exactly: what to convert a
     * file to. Others (complex, uint64, objects, strings) have none.
     */
    private static final java.util.Map<String, String> LOSSLESS_INTO = java.util.Map.of(
        "b1", "u1", "u2", "<i4", "u4", "<i8", "f2", "<f4");

    /**
     * @param code the ordinal stored in descriptors
     * @return the dtype with that code
     * @throws InvalidDescriptorException when the code is unknown
     */
    static DType fromCode(int code) {
        if (code < 0 || code >= VALUES.length) {
            throw new InvalidDescriptorException("dtype", "unknown dtype code " + code);
        }
        return VALUES[code];
    }
}
