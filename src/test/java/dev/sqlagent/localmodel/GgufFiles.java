package dev.sqlagent.localmodel;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Small GGUF files made in the test: a real header (keys and tensor infos) and a few bytes for data. */
public final class GgufFiles {
  private GgufFiles() {}

  /** A GGUF v3 header: architecture, name, file type, context length, optionally a chat template, and tensors. */
  public static byte[] header(String arch, long fileType, long contextLength, boolean chatTemplate, long[]... tensors) {
    Out o = new Out();
    o.raw("GGUF".getBytes(StandardCharsets.US_ASCII));
    o.u32(3);
    o.u64(tensors.length);
    o.u64(chatTemplate ? 6 : 5);
    o.string("general.architecture").u32(8).string(arch);
    o.string("general.name").u32(8).string("Test Model");
    o.string("general.file_type").u32(4).u32((int) fileType);
    o.string(arch + ".context_length").u32(4).u32((int) contextLength);
    o.string("tokenizer.ggml.tokens").u32(9).u32(8).u64(2).string("<s>").string("</s>");
    if (chatTemplate) o.string("tokenizer.chat_template").u32(8).string("{% for m in messages %}{{ m.content }}{% endfor %}");
    int i = 0;
    for (long[] dims : tensors) {
      o.string("t" + i++).u32(dims.length);
      for (long d : dims) o.u64(d);
      o.u32(0).u64(0);
    }
    o.raw(new byte[32]);
    return o.bytes();
  }

  private static final class Out {
    private final ByteArrayOutputStream b = new ByteArrayOutputStream();

    Out raw(byte[] x) {
      b.writeBytes(x);
      return this;
    }

    Out u32(int v) {
      return raw(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
    }

    Out u64(long v) {
      return raw(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
    }

    Out string(String s) {
      byte[] x = s.getBytes(StandardCharsets.UTF_8);
      return u64(x.length).raw(x);
    }

    byte[] bytes() {
      return b.toByteArray();
    }
  }
}
