import CCrypto

/// AES-128-CCM decryption (RFC 3610) through libcrypto's `EVP_aes_128_ccm`, for the encrypted
/// advertisement formats: BTHome v2 (13-byte nonce, 4-byte MIC, no associated data) and Xiaomi
/// MiBeacon v4/v5 (12-byte nonce, 4-byte MIC, associated data `0x11`).
///
/// Pure function of its inputs: no state between calls, one `EVP_CIPHER_CTX` per call, always freed.
/// Thread-safe (libcrypto ≥ 1.1 needs no global initialisation for EVP ciphers).
public enum AESCCM {
    /// Why a decryption produced no plaintext.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The key is not 16 bytes.
        case keyLength(Int)
        /// The nonce is outside 7…13 bytes (CCM's L = 15 − nonce length must be 2…8).
        case nonceLength(Int)
        /// The tag is not one of CCM's sizes (4, 6, …, 16).
        case tagLength(Int)
        /// Nothing to decrypt.
        case emptyCiphertext
        /// The MIC does not match: wrong key, or the frame was altered or corrupted.
        case authenticationFailed
        /// A libcrypto call failed for another reason; the name of the call.
        case library(String)

        public var description: String {
            switch self {
            case .keyLength(let n): "AES-128 key of \(n) bytes, expected 16"
            case .nonceLength(let n): "CCM nonce of \(n) bytes, expected 7 to 13"
            case .tagLength(let n): "CCM tag of \(n) bytes, expected an even size from 4 to 16"
            case .emptyCiphertext: "empty ciphertext"
            case .authenticationFailed: "MIC check failed (wrong key or corrupted frame)"
            case .library(let call): "libcrypto \(call) failed"
            }
        }
    }

    /// Decrypts and authenticates one CCM message.
    /// - Parameters:
    ///   - key: 16 bytes.
    ///   - nonce: 7 to 13 bytes.
    ///   - ciphertext: at least one byte.
    ///   - tag: the MIC, 4 to 16 bytes, even.
    ///   - associatedData: authenticated but not encrypted bytes (may be empty).
    /// - Returns: the plaintext, the same length as `ciphertext`.
    /// - Throws: `Failure.authenticationFailed` when the MIC does not match; other cases for bad sizes.
    public static func decrypt(
        key: [UInt8], nonce: [UInt8], ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>,
        associatedData: [UInt8] = []
    ) throws(Failure) -> [UInt8] {
        guard key.count == 16 else { throw .keyLength(key.count) }
        guard (7...13).contains(nonce.count) else { throw .nonceLength(nonce.count) }
        guard (4...16).contains(tag.count), tag.count % 2 == 0 else { throw .tagLength(tag.count) }
        // libcrypto's CCM wants a non-NULL output buffer; and a frame with no payload carries nothing.
        guard !ciphertext.isEmpty else { throw .emptyCiphertext }

        guard let ctx = EVP_CIPHER_CTX_new() else { throw .library("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }

        // Order required by OpenSSL for CCM (EVP_EncryptInit(3), "CCM Mode"): cipher, then IV
        // length and expected tag, then key and nonce, then the total length, then AAD, then data.
        guard EVP_DecryptInit_ex(ctx, EVP_aes_128_ccm(), nil, nil, nil) == 1 else {
            throw .library("EVP_DecryptInit_ex(cipher)")
        }
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1 else {
            throw .library("EVP_CIPHER_CTX_ctrl(SET_IVLEN)")
        }
        var tagBytes = Array(tag)
        let tagOK = tagBytes.withUnsafeMutableBytes { buf in
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, Int32(buf.count), buf.baseAddress)
        }
        guard tagOK == 1 else { throw .library("EVP_CIPHER_CTX_ctrl(SET_TAG)") }
        guard EVP_DecryptInit_ex(ctx, nil, nil, key, nonce) == 1 else {
            throw .library("EVP_DecryptInit_ex(key, nonce)")
        }
        var outLength: Int32 = 0
        // CCM needs the message length before any associated data.
        guard EVP_DecryptUpdate(ctx, nil, &outLength, nil, Int32(ciphertext.count)) == 1 else {
            throw .library("EVP_DecryptUpdate(length)")
        }
        if !associatedData.isEmpty {
            guard EVP_DecryptUpdate(ctx, nil, &outLength, associatedData, Int32(associatedData.count)) == 1 else {
                throw .library("EVP_DecryptUpdate(aad)")
            }
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let input = Array(ciphertext)
        // For CCM the final update both decrypts and verifies: it returns ≤ 0 when the tag differs,
        // and the output must then be discarded.
        let verified = plaintext.withUnsafeMutableBufferPointer { out in
            EVP_DecryptUpdate(ctx, out.baseAddress, &outLength, input, Int32(input.count))
        }
        guard verified > 0 else { throw .authenticationFailed }
        guard Int(outLength) == input.count else { throw .library("EVP_DecryptUpdate(data) length") }
        return plaintext
    }
}
