// The copy buttons: the pages' only script, and nothing depends on it (the text is selectable).
document.querySelectorAll('button[data-copy]').forEach(function (button) {
  var source = document.getElementById(button.getAttribute('data-copy'));
  var status = button.parentElement.querySelector('.copied');
  if (!source || !navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener('click', function () {
    navigator.clipboard.writeText(source.value).then(
      function () { status.textContent = 'Copied.'; },
      function () { status.textContent = 'Copy failed: select the text and copy it.'; }
    );
  });
});
