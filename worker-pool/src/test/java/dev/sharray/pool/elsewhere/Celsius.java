package dev.sharray.pool.elsewhere;

import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.ValueReader;
import dev.sharray.reducers.ValueWriter;

/**
 * A user type that crosses only through its reducer, which is package-private, as nested helper classes often
 * are, in a package other than the pool's (so the pool has no package access to it).
 */
public final class Celsius {
    private final int degrees;

    /** @param degrees the temperature */
    public Celsius(int degrees) {
        this.degrees = degrees;
    }

    /** @return the temperature */
    public int degrees() {
        return degrees;
    }

    /** @return a new instance of the package-private reducer */
    public static Reducer<Celsius> reducer() {
        return new PackagePrivateReducer();
    }

    /** With the public no-argument constructor the pool's builder asks for. */
    static final class PackagePrivateReducer implements Reducer<Celsius> {
        public PackagePrivateReducer() {
        }

        @Override
        public Class<Celsius> type() {
            return Celsius.class;
        }

        @Override
        public void write(Celsius value, ValueWriter out) {
            out.writeInt(value.degrees);
        }

        @Override
        public Celsius read(ValueReader in) {
            return new Celsius(in.readInt());
        }
    }
}
