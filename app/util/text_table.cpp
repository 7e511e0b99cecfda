#include "util/text_table.hpp"

#include <algorithm>

#include "util/terminal_text.hpp"

namespace xfer {

namespace {

// Splits text into lines of at most `first_width` (the first line) or `width` characters,
// breaking at spaces where possible and inside a word only when the word alone is too long.
std::vector<std::string> wrap_lines(const std::string& text, size_t width, size_t first_width) {
    std::vector<std::string> lines;
    std::string line;
    size_t i = 0;
    while (i < text.size()) {
        size_t j = text.find(' ', i);
        if (j == std::string::npos) j = text.size();
        std::string word = text.substr(i, j - i);
        i = j + 1;
        while (!word.empty()) {
            const size_t limit = std::max<size_t>(lines.empty() ? first_width : width, 1);
            const size_t need = line.empty() ? word.size() : line.size() + 1 + word.size();
            if (need <= limit) {
                line += (line.empty() ? "" : " ") + word;
                word.clear();
            } else if (!line.empty()) {
                lines.push_back(std::move(line));
                line.clear();
            } else {
                lines.push_back(word.substr(0, limit));
                word.erase(0, limit);
            }
        }
    }
    if (!line.empty() || lines.empty()) lines.push_back(line);
    return lines;
}

std::string pad(const std::string& s, size_t width, TextTable::Align align) {
    if (s.size() >= width) return s;
    const std::string fill(width - s.size(), ' ');
    return align == TextTable::Align::left ? s + fill : fill + s;
}

}  // namespace

void TextTable::add_column(std::string header, Align align, bool flex) {
    columns_.push_back({terminal_safe(header), align, flex});
}

void TextTable::add_row(std::vector<std::string> cells) {
    cells.resize(columns_.size());
    for (std::string& cell : cells) cell = terminal_safe(cell);
    rows_.push_back(std::move(cells));
}

size_t TextTable::longest_word(size_t column) const {
    size_t longest = 0;
    for (const auto& row : rows_) {
        const std::string& cell = row[column];
        for (size_t i = 0; i <= cell.size();) {
            size_t j = cell.find(' ', i);
            if (j == std::string::npos) j = cell.size();
            longest = std::max(longest, j - i);
            i = j + 1;
        }
    }
    return longest;
}

std::string TextTable::render(size_t width, size_t indent) const {
    constexpr size_t kGap = 2;
    std::vector<size_t> w(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) {
        w[c] = columns_[c].header.size();
        for (const auto& row : rows_) w[c] = std::max(w[c], row[c].size());
    }
    size_t total = indent;
    for (size_t c = 0; c < w.size(); ++c) total += w[c] + (c ? kGap : 0);
    // Flexible columns give up width in order, first down to their longest word (up to 30, so
    // that "transfer.direction=h2d" wraps between words), then, if the table is still too
    // wide, down to 12 characters (or the header).
    for (const bool keep_words : {true, false}) {
        for (size_t c = 0; c < columns_.size() && total > width; ++c) {
            if (!columns_[c].flex) continue;
            size_t floor = std::max<size_t>(columns_[c].header.size(), 12);
            if (keep_words) floor = std::max(floor, std::min<size_t>(longest_word(c), 30));
            const size_t cut = std::min(total - width, w[c] > floor ? w[c] - floor : 0);
            w[c] -= cut;
            total -= cut;
        }
    }

    std::string out;
    auto emit = [&](const std::vector<std::string>& cells) {
        std::vector<std::vector<std::string>> wrapped(cells.size());
        size_t height = 1;
        for (size_t c = 0; c < cells.size(); ++c) {
            wrapped[c] = cells[c].size() > w[c] ? wrap_lines(cells[c], w[c], w[c])
                                                : std::vector<std::string>{cells[c]};
            height = std::max(height, wrapped[c].size());
        }
        for (size_t line = 0; line < height; ++line) {
            std::string text(indent, ' ');
            for (size_t c = 0; c < cells.size(); ++c) {
                if (c) text += std::string(kGap, ' ');
                const std::string& cell = line < wrapped[c].size() ? wrapped[c][line] : "";
                text += pad(cell, w[c], columns_[c].align);
            }
            while (!text.empty() && text.back() == ' ') text.pop_back();
            out += text + "\n";
        }
    };
    std::vector<std::string> headers;
    for (const auto& c : columns_) headers.push_back(c.header);
    emit(headers);
    for (const auto& row : rows_) emit(row);
    return out;
}

std::string wrap(const std::string& text, size_t width, const std::string& first,
                 const std::string& rest) {
    // Never narrower than 8 columns, whatever the prefixes.
    auto avail = [width](const std::string& prefix) {
        return width > prefix.size() + 8 ? width - prefix.size() : 8;
    };
    std::string out;
    bool first_line = true;
    for (const auto& line : wrap_lines(terminal_safe(text), avail(rest), avail(first))) {
        out += (first_line ? first : rest) + line + "\n";
        first_line = false;
    }
    return out;
}

}  // namespace xfer
