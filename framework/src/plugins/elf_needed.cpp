#include "plugins/elf_needed.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>

namespace cctx {

namespace {

template <class T>
bool read_at(std::ifstream& in, std::uint64_t offset, T* out) {
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out), sizeof(T));
  return static_cast<bool>(in);
}

}  // namespace

std::vector<std::string> elf_needed_libraries(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in || !read_at(in, 0, &header)) return {};
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_phentsize != sizeof(Elf64_Phdr) ||
      header.e_phnum > 4096) {
    return {};
  }
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  for (std::size_t k = 0; k < segments.size(); ++k) {
    if (!read_at(in, header.e_phoff + k * sizeof(Elf64_Phdr), &segments[k])) return {};
  }
  // The string table is named by its address: the loadable segment holding it gives its offset.
  auto file_offset = [&](std::uint64_t address, std::uint64_t* offset) {
    for (const Elf64_Phdr& s : segments) {
      if (s.p_type == PT_LOAD && address >= s.p_vaddr && address - s.p_vaddr < s.p_filesz) {
        *offset = s.p_offset + (address - s.p_vaddr);
        return true;
      }
    }
    return false;
  };
  std::vector<std::uint64_t> needed;  // offsets into the string table
  std::uint64_t strtab = 0;
  bool has_strtab = false;
  for (const Elf64_Phdr& s : segments) {
    if (s.p_type != PT_DYNAMIC) continue;
    const std::uint64_t count = std::min<std::uint64_t>(s.p_filesz / sizeof(Elf64_Dyn), 65536);
    for (std::uint64_t k = 0; k < count; ++k) {
      Elf64_Dyn entry{};
      if (!read_at(in, s.p_offset + k * sizeof(Elf64_Dyn), &entry) || entry.d_tag == DT_NULL) break;
      if (entry.d_tag == DT_NEEDED) needed.push_back(entry.d_un.d_val);
      if (entry.d_tag == DT_STRTAB) has_strtab = file_offset(entry.d_un.d_ptr, &strtab);
    }
  }
  std::vector<std::string> names;
  if (!has_strtab) return names;
  for (const std::uint64_t at : needed) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(strtab + at));
    std::string name;
    std::getline(in, name, '\0');
    if (!in || name.size() > 4096) return {};
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace cctx
