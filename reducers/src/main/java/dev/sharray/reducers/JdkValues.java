package dev.sharray.reducers;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Date;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The JDK's everyday value classes: {@code Optional} and its primitive variants, {@code UUID}, {@code BigInteger},
 * {@code BigDecimal}, {@code Locale}, {@code Date}, (through {@link TimeValues}) the {@code java.time} values, and
 * (through {@link LocationValues}) {@code File} and {@code URI} ({@code Path}, an interface, is matched by the
 * registry). Kept apart, and resolved by class name, so a process that never meets one loads none of these classes.
 */
final class JdkValues {
    /** {@link Tags#LOCALE}'s forms: the locale's language tag, or its language, country and variant. */
    private static final byte LOCALE_TAG = 0;
    private static final byte LOCALE_FIELDS = 1;

    private JdkValues() {
    }

    /** @return the handler for exactly this JDK class, or {@code null} */
    static Reducers.Handler handler(Class<?> type) {
        final String name = type.getName();
        if (name.startsWith("java.time.")) {
            return TimeValues.handler(name);
        }
        switch (name) {
            case "java.util.Optional":
                return (v, out) -> {
                    out.writeByte(Tags.OPTIONAL);
                    out.writeValue(((Optional<?>) v).orElse(null)); // an Optional never holds null: NULL is empty
                };
            case "java.util.OptionalInt":
                return (v, out) -> {
                    final OptionalInt o = (OptionalInt) v;
                    out.writeByte(Tags.OPTIONAL_INT);
                    out.writeBoolean(o.isPresent());
                    if (o.isPresent()) {
                        out.writeInt(o.getAsInt());
                    }
                };
            case "java.util.OptionalLong":
                return (v, out) -> {
                    final OptionalLong o = (OptionalLong) v;
                    out.writeByte(Tags.OPTIONAL_LONG);
                    out.writeBoolean(o.isPresent());
                    if (o.isPresent()) {
                        out.writeLong(o.getAsLong());
                    }
                };
            case "java.util.OptionalDouble":
                return (v, out) -> {
                    final OptionalDouble o = (OptionalDouble) v;
                    out.writeByte(Tags.OPTIONAL_DOUBLE);
                    out.writeBoolean(o.isPresent());
                    if (o.isPresent()) {
                        out.writeDouble(o.getAsDouble());
                    }
                };
            case "java.util.UUID":
                return (v, out) -> {
                    out.writeByte(Tags.UUID);
                    out.writeLong(((UUID) v).getMostSignificantBits());
                    out.writeLong(((UUID) v).getLeastSignificantBits());
                };
            case "java.math.BigInteger":
                return (v, out) -> {
                    out.writeByte(Tags.BIG_INTEGER);
                    out.writeByteArrayBody(((BigInteger) v).toByteArray());
                };
            case "java.math.BigDecimal":
                return (v, out) -> {
                    final BigDecimal d = (BigDecimal) v;
                    out.writeByte(Tags.BIG_DECIMAL);
                    out.writeInt(d.scale());
                    out.writeByteArrayBody(d.unscaledValue().toByteArray());
                };
            case "java.util.Locale":
                return (v, out) -> writeLocale((Locale) v, out);
            case "java.util.Date": // not java.sql.Timestamp and the like: they carry more than the millis
                return (v, out) -> {
                    out.writeByte(Tags.DATE);
                    out.writeLong(((Date) v).getTime());
                };
            case "java.io.File":
            case "java.net.URI":
                return LocationValues.handler(name);
            default:
                return null; // a subclass of BigInteger or BigDecimal is not theirs to rebuild
        }
    }

    /** Reads a value of one of this class's tags (tag already read). */
    static Object read(byte tag, ValueReader in) {
        switch (tag) {
            case Tags.OPTIONAL:
                return Optional.ofNullable(in.readValue());
            case Tags.OPTIONAL_INT:
                return in.readBoolean() ? OptionalInt.of(in.readInt()) : OptionalInt.empty();
            case Tags.OPTIONAL_LONG:
                return in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty();
            case Tags.OPTIONAL_DOUBLE:
                return in.readBoolean() ? OptionalDouble.of(in.readDouble()) : OptionalDouble.empty();
            case Tags.UUID: {
                final long most = in.readLong();
                return new UUID(most, in.readLong());
            }
            case Tags.BIG_INTEGER:
                return readBigInteger(in);
            case Tags.BIG_DECIMAL: {
                final int scale = in.readInt();
                return new BigDecimal(readBigInteger(in), scale); // any int scale is valid
            }
            case Tags.LOCALE:
                return readLocale(in);
            case Tags.DATE:
                return new Date(in.readLong()); // any long is a Date
            default:
                throw new MalformedDataException("not a JDK value tag: " + tag);
        }
    }

    /**
     * A locale as its language tag when that rebuilds it equal, which holds for every locale BCP 47 can spell,
     * script, variants and extensions included (de-DE-u-co-phonebk, zh-Hant-TW, and ja_JP_JP, whose tag
     * ja-JP-u-ca-japanese-x-lvariant-JP keeps its variant); otherwise, for a locale of the legacy constructor that
     * BCP 47 cannot spell (no_NO_NY, en_USA: forLanguageTag would give nn_NO and en), its three fields, which that
     * constructor rebuilds equal. Neither its toString nor its tag alone round-trips every locale.
     */
    private static void writeLocale(Locale locale, ValueWriter out) {
        final String tag = locale.toLanguageTag();
        final Locale parsed = Locale.forLanguageTag(tag);
        out.writeByte(Tags.LOCALE);
        if (parsed.equals(locale) && parsed.toLanguageTag().equals(tag)) {
            out.writeByte(LOCALE_TAG);
            out.writeString(tag);
        } else if (locale.getScript().isEmpty() && locale.getExtensionKeys().isEmpty()
            && legacyLocale(locale.getLanguage(), locale.getCountry(), locale.getVariant()).equals(locale)) {
            out.writeByte(LOCALE_FIELDS);
            out.writeString(locale.getLanguage());
            out.writeString(locale.getCountry());
            out.writeString(locale.getVariant());
        } else {
            // no public factory makes such a locale (a script or extension with ill-formed fields): never seen
            throw new ReducerException("the locale " + locale + " can be rebuilt neither from its language tag " + tag
                + " nor from its language, country and variant: register a Reducer<Locale>");
        }
    }

    private static Locale readLocale(ValueReader in) {
        final int at = in.position() - 1;
        final byte form = in.readByte();
        if (form == LOCALE_TAG) {
            final String tag = requireString(in, "language tag", at);
            final Locale locale = Locale.forLanguageTag(tag);
            // forLanguageTag drops what it cannot parse ("en-US-!!" gives en_US): only the tag a sender writes, the
            // locale's own canonical one, is taken
            if (!locale.toLanguageTag().equals(tag)) {
                throw new MalformedDataException("invalid Locale at offset " + at + ": a language tag of "
                    + tag.length() + " characters that is not the well-formed, canonical tag of a locale");
            }
            return locale;
        } else if (form == LOCALE_FIELDS) {
            final String language = requireString(in, "language", at);
            final String country = requireString(in, "country", at);
            return legacyLocale(language, country, requireString(in, "variant", at));
        }
        throw new MalformedDataException("invalid Locale at offset " + at + ": form " + form + " is neither "
            + LOCALE_TAG + " (a language tag) nor " + LOCALE_FIELDS + " (language, country, variant)");
    }

    @SuppressWarnings("deprecation") // Locale.of, its replacement, is JDK 19+; this constructor is what it does
    private static Locale legacyLocale(String language, String country, String variant) {
        return new Locale(language, country, variant);
    }

    private static String requireString(ValueReader in, String what, int at) {
        final String s = in.readString(); // its length is checked against the bytes present first
        if (s == null) {
            throw new MalformedDataException("invalid Locale at offset " + at + ": a null " + what);
        }
        return s;
    }

    private static BigInteger readBigInteger(ValueReader in) {
        final int at = in.position();
        final byte[] bytes = in.readByteArrayBody(); // its length is checked against the bytes present first
        if (bytes.length == 0) {
            throw new MalformedDataException("a BigInteger of no bytes at offset " + at);
        }
        try {
            return new BigInteger(bytes);
        } catch (ArithmeticException e) {
            // more than Integer.MAX_VALUE bits: no BigInteger the sender could have had
            throw new MalformedDataException("a BigInteger of " + bytes.length + " bytes at offset " + at + ": "
                + e.getMessage(), e);
        }
    }
}
