package dev.sharray.bench.codec;

import dev.sharray.codec.Backend;

/** ISA-L side: the same Encode done by ISA-L's own ec_encode_data (libisal2) on the same stripes. */
public final class IsalEncode extends CodecWorkload {
    /** Used by the harness. */
    public IsalEncode() {
        super(Backend.ISAL, false);
    }
}
