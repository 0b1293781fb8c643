package dev.sqlagent.localmodel;

import io.vertx.core.json.JsonObject;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a GGUF file says about itself: read from its header and key/value section (never its tensors' data), so a
 * file can be checked and described before anything loads it.
 */
public record GgufInfo(String file, long bytes, int version, String architecture, String name, String sizeLabel,
    long parameters, String quantization, int contextLength, boolean hasChatTemplate) {

  /** Thrown for a file that is not a GGUF model: wrong magic, cut short, or an impossible header. */
  public static final class NotGguf extends IOException {
    public NotGguf(String message) {
      super(message);
    }
  }

  private static final int MAX_STRING = 64 * 1024 * 1024;

  /** Reads {@code path}'s header; fails with {@link NotGguf} when it is not a whole GGUF header. */
  public static GgufInfo read(Path path) throws IOException {
    long size = Files.size(path);
    try (InputStream raw = Files.newInputStream(path);
         DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
      return new Reader(in).read(path.getFileName().toString(), size);
    } catch (EOFException e) {
      throw new NotGguf(path.getFileName() + " ends inside its GGUF header: the file is incomplete");
    }
  }

  /** For a health page and a model list: the facts a person compares with what they downloaded. */
  public JsonObject toJson() {
    return new JsonObject().put("file", file).put("bytes", bytes).put("architecture", architecture)
        .put("name", name).put("size_label", sizeLabel).put("parameters", parameters)
        .put("quantization", quantization).put("context_length", contextLength)
        .put("chat_template", hasChatTemplate);
  }

  /** One line, e.g. "qwen2 0.5B Q4_K_M (630M parameters, 491 MB)". */
  public String summary() {
    return architecture + " " + (sizeLabel == null ? "" : sizeLabel + " ") + quantization + " ("
        + Math.round(parameters / 1e6) + "M parameters, " + Math.round(bytes / 1e6) + " MB)";
  }

  /** llama.cpp's {@code general.file_type} numbers, the ones a GGUF on a laptop carries. */
  static String fileType(long t) {
    return switch ((int) t) {
      case 0 -> "F32";
      case 1 -> "F16";
      case 2 -> "Q4_0";
      case 3 -> "Q4_1";
      case 7 -> "Q8_0";
      case 8 -> "Q5_0";
      case 9 -> "Q5_1";
      case 10 -> "Q2_K";
      case 11 -> "Q3_K_S";
      case 12 -> "Q3_K_M";
      case 13 -> "Q3_K_L";
      case 14 -> "Q4_K_S";
      case 15 -> "Q4_K_M";
      case 16 -> "Q5_K_S";
      case 17 -> "Q5_K_M";
      case 18 -> "Q6_K";
      case 32 -> "BF16";
      default -> "type " + t;
    };
  }

  /** GGUF is little-endian; DataInputStream is big-endian, hence the byte swaps. */
  private static final class Reader {
    private final DataInputStream in;
    private String architecture = "unknown";
    private String name;
    private String sizeLabel;
    private long fileType = -1;
    private boolean chatTemplate;
    private final java.util.Map<String, Long> numbers = new java.util.HashMap<>();

    Reader(DataInputStream in) {
      this.in = in;
    }

    GgufInfo read(String file, long size) throws IOException {
      byte[] magic = new byte[4];
      in.readFully(magic);
      if (!"GGUF".equals(new String(magic, StandardCharsets.US_ASCII))) {
        throw new NotGguf(file + " is not a GGUF model (it does not start with the bytes GGUF)");
      }
      int version = u32();
      if (version < 2 || version > 3) throw new NotGguf(file + ": GGUF version " + version + " is not supported (2 or 3 is)");
      long tensors = u64();
      long keys = u64();
      if (tensors < 0 || tensors > 1_000_000 || keys < 0 || keys > 1_000_000) {
        throw new NotGguf(file + ": its GGUF header counts " + tensors + " tensors and " + keys + " keys, which no model has");
      }
      for (long i = 0; i < keys; i++) keyValue();
      long parameters = 0;
      for (long i = 0; i < tensors; i++) {
        string(); // tensor name
        int dims = u32();
        if (dims < 0 || dims > 8) throw new NotGguf(file + ": a tensor with " + dims + " dimensions");
        long count = 1;
        for (int d = 0; d < dims; d++) count *= u64();
        u32(); // type
        u64(); // offset
        parameters += count;
      }
      Long ctx = numbers.get(architecture + ".context_length");
      return new GgufInfo(file, size, version, architecture, name, sizeLabel, parameters, fileType(fileType),
          ctx == null ? 0 : (int) Math.min(Integer.MAX_VALUE, ctx), chatTemplate);
    }

    private void keyValue() throws IOException {
      String key = string();
      int type = u32();
      switch (key) {
        case "general.architecture" -> architecture = (String) value(type);
        case "general.name" -> name = String.valueOf(value(type));
        case "general.size_label" -> sizeLabel = String.valueOf(value(type));
        case "general.file_type" -> fileType = ((Number) value(type)).longValue();
        case "tokenizer.chat_template" -> {
          value(type);
          chatTemplate = true;
        }
        default -> {
          Object v = value(type);
          if (v instanceof Number n) numbers.put(key, n.longValue());
        }
      }
    }

    private Object value(int type) throws IOException {
      return switch (type) {
        case 0, 1 -> (long) in.readUnsignedByte();
        case 2, 3 -> (long) Short.reverseBytes(in.readShort());
        case 4 -> Integer.toUnsignedLong(u32());
        case 5 -> (long) u32();
        case 6 -> Float.intBitsToFloat(u32());
        case 7 -> in.readUnsignedByte() != 0;
        case 8 -> string();
        case 9 -> {
          int elementType = u32();
          long n = u64();
          if (n < 0 || n > 100_000_000) throw new NotGguf("an array of " + n + " elements in a GGUF header");
          for (long i = 0; i < n; i++) value(elementType);
          yield null;
        }
        case 10, 11 -> u64();
        case 12 -> Double.longBitsToDouble(u64());
        default -> throw new NotGguf("a GGUF value of unknown type " + type);
      };
    }

    private String string() throws IOException {
      long n = u64();
      if (n < 0 || n > MAX_STRING) throw new NotGguf("a GGUF string of " + n + " bytes");
      byte[] b = new byte[(int) n];
      in.readFully(b);
      return new String(b, StandardCharsets.UTF_8);
    }

    private int u32() throws IOException {
      return Integer.reverseBytes(in.readInt());
    }

    private long u64() throws IOException {
      return Long.reverseBytes(in.readLong());
    }
  }
}
