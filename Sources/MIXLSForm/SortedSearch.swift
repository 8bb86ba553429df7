extension RandomAccessCollection where Index == Int {
    /// In a collection sorted by `key`, the index of the first element whose key is `key` or more
    /// (`endIndex` when there is none): cells by column, rows by number.
    func lowerBound(of key: Int, by keyOf: (Element) -> Int) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if keyOf(self[middle]) < key { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
